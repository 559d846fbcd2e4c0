// Delivery tuning, from the configuration (lib/config/schema.ts). Defaults suit production; tests and
// benchmarks change them.
import { config, type Config } from "@/lib/config/config";

export interface DeliverySettings {
  /** Attempts in flight at once per destination, across all worker processes (DELIVERY_ENDPOINT_CONCURRENCY, default 10). */
  destinationConcurrency: number;
  /**
   * Attempts in flight at once per organization, across all worker processes (ORG_DELIVERY_CONCURRENCY,
   * default 50): one organization's hanging destinations can hold no more worker slots than this.
   */
  orgConcurrency: number;
  /** A claim lasts the destination's timeout plus this much (DELIVERY_LEASE_MARGIN_MS, default 30 s). */
  leaseMarginMs: number;
  /**
   * Open deliveries of an destination the rescue sweep reads a minute looking for ones that lost their job
   * (DELIVERY_ORPHAN_WALK, default 2000); it goes on from there the next minute, round the backlog.
   */
  orphanWalk: number;
}

/** The two caps on attempts in flight. */
export type SlotCaps = Pick<DeliverySettings, "destinationConcurrency" | "orgConcurrency">;

export function deliverySettings(settings: Config = config()): DeliverySettings {
  return {
    destinationConcurrency: settings.DELIVERY_ENDPOINT_CONCURRENCY,
    orgConcurrency: settings.ORG_DELIVERY_CONCURRENCY,
    leaseMarginMs: settings.DELIVERY_LEASE_MARGIN_MS,
    orphanWalk: settings.DELIVERY_ORPHAN_WALK,
  };
}

/**
 * The longest wait between two automatic attempts (DELIVERY_RETRY_MAX_DELAY_SECONDS, default 3600 =
 * API.md's one hour), before the destination's Retry-After. The fault suite shortens it so a
 * destination that was down two minutes is tried again within seconds of coming back.
 */
export function retryMaxDelayMs(settings: Config = config()): number {
  return settings.DELIVERY_RETRY_MAX_DELAY_SECONDS * 1000;
}
