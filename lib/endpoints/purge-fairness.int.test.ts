// Purges of deleted endpoints queue per organization: one organization deleting several big
// endpoints does not make another's purge wait its turn behind them.
import { afterAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { purgeEndpointDeliveriesTask } from "@/jobs/purge-endpoint-deliveries";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { deleteEndpoint } from "@/lib/endpoints/delete-endpoint";
import { useTestDatabase } from "@/test/db";
import { startTestWorker, until } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
afterAll(async () => {
  await worker?.stop();
});

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;

async function endpointWithDeliveries(org: Org, count: number) {
  const endpoint = await createEndpoint({ ctx: org.ctx, input: { name: `ep-${count}-${Math.random()}`, provider: "none", destinationUrl: "http://127.0.0.1:9/" } });
  await getSql()`
    insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes)
    select 'dlv_pf_' || ${endpoint.id} || '_' || n, ${org.organizationId}, ${endpoint.id}, ${defaultDestinationId(endpoint.id)}, 'evt_' || n, 'delivered', 2
    from generate_series(1, ${count}::int) n`;
  return endpoint;
}

const left = async (endpointId: string) =>
  (await getSql()`select count(*)::int as n from deliveries where endpoint_id = ${endpointId}`)[0]!.n as number;

describe("purges of deleted endpoints", () => {
  it("lets another organization's purge run while one organization's big purges are still going", { timeout: 120_000 }, async () => {
    const acme = await createOrganizationFixture("Acme");
    const globex = await createOrganizationFixture("Globex");
    // ~5,000 deliveries a second per purge: acme's three take ~12 s one after the other.
    const acmes = [await endpointWithDeliveries(acme, 20_000), await endpointWithDeliveries(acme, 20_000), await endpointWithDeliveries(acme, 20_000)];
    const globexOne = await endpointWithDeliveries(globex, 100);
    for (const endpoint of acmes) await deleteEndpoint({ ctx: acme.ctx, input: { id: endpoint.id } });
    worker = await startTestWorker({ "purge-endpoint-deliveries": purgeEndpointDeliveriesTask }, { concurrency: 4 });
    // Every acme purge job has been picked up by now, and one is deleting.
    await until("acme's purge under way", async () => (await Promise.all(acmes.map((e) => left(e.id)))).some((n) => n < 20_000), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));

    await deleteEndpoint({ ctx: globex.ctx, input: { id: globexOne.id } });
    await until("globex's purge done", async () => (await left(globexOne.id)) === 0, 60_000);
    const acmeLeft = await Promise.all(acmes.map((e) => left(e.id)));
    console.log(`[purge-fairness] globex's purge done while acme still had ${acmeLeft.join(" + ")} of 3 × 20000 deliveries to purge`);
    expect(acmeLeft.reduce((a, b) => a + b, 0)).toBeGreaterThan(20_000);
    // acme's own purges still run one at a time: at most one of its endpoints has been begun.
    expect(acmeLeft.filter((n) => n < 20_000).length).toBeLessThanOrEqual(1);
  });
});
