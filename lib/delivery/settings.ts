// Delivery tuning from the environment. Defaults suit production; tests and benchmarks change them.

export interface DeliverySettings {
  /** Attempts in flight at once per endpoint, across all worker processes (DELIVERY_ENDPOINT_CONCURRENCY, default 10). */
  endpointConcurrency: number;
  /** A claim lasts the endpoint's timeout plus this much (DELIVERY_LEASE_MARGIN_MS, default 30 s). */
  leaseMarginMs: number;
}

function positiveInteger(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return value && Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
}

export function deliverySettings(env: NodeJS.ProcessEnv = process.env): DeliverySettings {
  return {
    endpointConcurrency: positiveInteger(env.DELIVERY_ENDPOINT_CONCURRENCY, 10),
    leaseMarginMs: positiveInteger(env.DELIVERY_LEASE_MARGIN_MS, 30_000),
  };
}
