// The set-up shared by integration tests of the deliver task run by a real graphile-worker in the
// test process: an organization, the worker, local destinations closed at the end, and readers.
import { afterAll, beforeAll, beforeEach } from "vitest";
import { getSql } from "@/db";
import { deliverTask } from "@/jobs/deliver";
import { getDelivery } from "@/lib/delivery/get-delivery";
import { startDestination, startTestWorker, until, type Destination } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";

export function useDeliveryWorkerSuite() {
  process.env.DELIVERY_LOG = "problems";
  let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
  let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
  const destinations: Destination[] = [];

  beforeAll(async () => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    org = await createOrganizationFixture();
    worker = await startTestWorker({ deliver: deliverTask });
  });
  afterAll(async () => {
    await worker?.stop();
    await Promise.all(destinations.map((d) => d.close()));
  });
  beforeEach(() => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    delete process.env.DELIVERY_ENDPOINT_CONCURRENCY;
  });

  const read = (id: string) => getDelivery({ ctx: org.ctx, input: { id } });
  return {
    get org() {
      return org;
    },
    async destination(...args: Parameters<typeof startDestination>) {
      const started = await startDestination(...args);
      destinations.push(started);
      return started;
    },
    read,
    settled: (id: string, status: "delivered" | "dead", timeoutMs = 20_000) =>
      until(`${id} ${status}`, async () => {
        const delivery = await read(id);
        return delivery.status === status ? delivery : null;
      }, timeoutMs),
    /** Deliver jobs waiting for this delivery, keyed or not. */
    async jobsFor(id: string): Promise<number> {
      const [row] = await getSql()`select count(*)::int as n from graphile_worker._private_jobs where payload->>'deliveryId' = ${id}`;
      return row!.n;
    },
  };
}
