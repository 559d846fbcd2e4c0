// Bulk replay and bury with a search (#47, API.md "Deliveries": the bulk filter takes the list's `q`): a dry run
// counts what the search names, the act changes exactly those (every destination's row of a request q matches),
// and the work takes its turn with the organization's searches. No worker runs: jobs stay queued.
import { beforeAll, describe, expect, it } from "vitest";
import * as buryMany from "@/app/api/v1/deliveries/bury/route";
import * as replayMany from "@/app/api/v1/deliveries/replay/route";
import { getDb, getSql } from "@/db";
import { deliveries } from "@/db/schema";
import { createDestination } from "@/lib/destinations/create-destination";
import { deliveryRowId } from "@/lib/ids";
import { searchGate } from "@/lib/search/search-gate";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
process.env.DELIVERY_LOG = "problems";

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;
let acme: Org;
let globex: Org;
beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
  globex = await createOrganizationFixture("Globex");
});

const post = (handler: Parameters<typeof callRoute>[0], org: Org, path: string, body: unknown) =>
  callRoute(handler, { method: "POST", apiKey: org.apiKey, path, params: {}, body });

async function statusOf(ids: string[]): Promise<string[]> {
  const rows = await getSql()<{ id: string; status: string }[]>`select id, status from deliveries where id = any(${ids})`;
  const byId = new Map(rows.map((row) => [row.id, row.status]));
  return ids.map((id) => byId.get(id)!);
}

const body = (email: string) => JSON.stringify({ type: "customer.updated", data: { email, plan: "pro" } });

describe("bulk replay and bury take the list's q", () => {
  it("counts on a dry run, then replays only the deliveries the search names, every destination's row of them", async () => {
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/q");
    const second = await createDestination({ ctx: acme.ctx, input: { endpointId: endpoint.id, body: { name: "Billing", url: "http://127.0.0.1:9/billing" } } });
    const make = async (email: string, ctx = acme.ctx, endpointId = endpoint.id) =>
      (await createDeliveryFixture({ ctx, endpointId, status: "dead", body: body(email), enqueue: false })).id;
    const alice = [await make("alice@example.com"), await make("Alice@Example.com")];
    // The first request's row for the second destination: the body is its request's.
    const fanned = deliveryRowId(alice[0]!, second.id, false);
    const [first] = await getSql()`select * from deliveries where id = ${alice[0]!}`;
    await getDb().insert(deliveries).values({
      id: fanned, organizationId: acme.organizationId, endpointId: endpoint.id, destinationId: second.id, externalId: first!.external_id,
      eventType: first!.event_type, status: "dead", sizeBytes: first!.size_bytes, receivedAt: first!.received_at, pendingSince: first!.received_at,
    });
    const others = [await make("bob@example.com"), await make("malice@example.org")];
    const globexEndpoint = await createEndpointFixture(globex.ctx, "http://127.0.0.1:9/g");
    const theirs = await make("alice@example.com", globex.ctx, globexEndpoint.id);
    const filter = { endpointId: endpoint.id, q: "alice@example.com" };

    const dry = await post(replayMany.POST, acme, "/api/v1/deliveries/replay?dryRun=true", filter);
    expect(dry).toMatchObject({ status: 200, body: { count: 3 } });
    expect(await statusOf([...alice, fanned])).toEqual(["dead", "dead", "dead"]);

    const res = await post(replayMany.POST, acme, "/api/v1/deliveries/replay", filter);
    expect(res).toMatchObject({ status: 202, body: { count: 3 } });
    expect(await statusOf([...alice, fanned])).toEqual(["pending", "pending", "pending"]);
    expect(await statusOf([...others, theirs])).toEqual(["dead", "dead", "dead"]);

    // Bury with the same search, across endpoints (no endpointId): only acme's matches.
    const bury = await post(buryMany.POST, acme, "/api/v1/deliveries/bury?dryRun=true", { q: "alice@example.com" });
    expect(bury).toMatchObject({ status: 200, body: { count: 3 } });
    expect(await post(buryMany.POST, acme, "/api/v1/deliveries/bury", { q: "alice@example.com" })).toMatchObject({ status: 200, body: { count: 3 } });
    expect(await statusOf([...alice, fanned, theirs])).toEqual(["dead", "dead", "dead", "dead"]);
    const [reason] = await getSql()`select dead_reason from deliveries where id = ${alice[1]!}`;
    expect(reason!.dead_reason).toBe("buried");
  });

  it("refuses an empty or oversized q, as a misspelt field", async () => {
    expect((await post(replayMany.POST, acme, "/api/v1/deliveries/replay?dryRun=true", { q: "  " })).status).toBe(400);
    expect((await post(replayMany.POST, acme, "/api/v1/deliveries/replay?dryRun=true", { q: "x".repeat(1001) })).status).toBe(400);
    expect((await post(replayMany.POST, acme, "/api/v1/deliveries/replay?dryRun=true", { query: "alice" })).status).toBe(400);
  });

  it("takes its turn with the organization's searches: refused while its share is taken and its queue full", async () => {
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/turn");
    await createDeliveryFixture({ ctx: acme.ctx, endpointId: endpoint.id, status: "dead", body: body("carol@example.com"), enqueue: false });
    const gate = searchGate();
    const { perOrganization, queuePerOrganization } = gate.settings;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The organization's share of searches running, and its queue full.
    const holders = Array.from({ length: perOrganization + queuePerOrganization }, () => gate.run(acme.organizationId, () => held));
    try {
      const refused = await post(replayMany.POST, acme, "/api/v1/deliveries/replay?dryRun=true", { endpointId: endpoint.id, q: "carol@example.com" });
      expect(refused.status).toBe(429);
      // Without q it reads no body, and does not wait for a turn.
      const plain = await post(replayMany.POST, acme, "/api/v1/deliveries/replay?dryRun=true", { endpointId: endpoint.id });
      expect(plain).toMatchObject({ status: 200, body: { count: 1 } });
      // Another organization's turn is its own.
      expect((await post(replayMany.POST, globex, "/api/v1/deliveries/replay?dryRun=true", { q: "carol@example.com" })).status).toBe(200);
    } finally {
      release();
      await Promise.all(holders);
    }
    expect(await post(replayMany.POST, acme, "/api/v1/deliveries/replay?dryRun=true", { endpointId: endpoint.id, q: "carol@example.com" })).toMatchObject({ status: 200, body: { count: 1 } });
  });
});
