// Delivery tuning from the environment. Defaults suit production; tests and benchmarks change them.
import { positiveIntegerEnv as positiveInteger } from "@/lib/env-number";

export interface DeliverySettings {
  /** Attempts in flight at once per endpoint, across all worker processes (DELIVERY_ENDPOINT_CONCURRENCY, default 10). */
  endpointConcurrency: number;
  /** A claim lasts the endpoint's timeout plus this much (DELIVERY_LEASE_MARGIN_MS, default 30 s). */
  leaseMarginMs: number;
}

export function deliverySettings(env: NodeJS.ProcessEnv = process.env): DeliverySettings {
  return {
    endpointConcurrency: positiveInteger(env.DELIVERY_ENDPOINT_CONCURRENCY, 10),
    leaseMarginMs: positiveInteger(env.DELIVERY_LEASE_MARGIN_MS, 30_000),
  };
}
