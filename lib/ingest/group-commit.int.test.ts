// The group committer against a real database, fed rows directly (past ingest's own checks): a batch
// shared by organizations where the database refuses one row.
import { defaultLanes } from "@/lib/destinations/route-request";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { StoreUnavailableError, UnstorableDeliveryError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { GroupCommitter, type NewDelivery } from "./group-commit";

const database = useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

let sql: postgres.Sql;
let endpointA: { id: string; organizationId: string };
let endpointB: { id: string; organizationId: string };
beforeAll(async () => {
  sql = postgres(database.url(), { max: 4, onnotice: () => {}, connection: { statement_timeout: 2_000 } });
  for (const name of ["A", "B"]) {
    const org = await createOrganizationFixture(`Org ${name}`);
    const endpoint = await createEndpoint({ ctx: org.ctx, input: { name, provider: "none", destinationUrl: "http://127.0.0.1:9/" } });
    if (name === "A") endpointA = { id: endpoint.id, organizationId: org.organizationId };
    else endpointB = { id: endpoint.id, organizationId: org.organizationId };
  }
});
afterAll(async () => {
  await sql?.end();
});

function delivery(endpoint: { id: string; organizationId: string }, fields: Partial<NewDelivery> = {}): NewDelivery {
  const id = newId("dlv");
  return { id, organizationId: endpoint.organizationId, endpointId: endpoint.id, lanes: defaultLanes(id, endpoint.id), externalId: `evt_${id}`, eventType: "ok.event", headers: { "content-type": "application/json" }, body: Buffer.from('{"ok":true}'), sourceIp: null, ...fields };
}

const committer = (options: Partial<ConstructorParameters<typeof GroupCommitter>[1]> = {}) =>
  new GroupCommitter(() => sql, { timeoutMs: 8_000, statementTimeoutMs: 2_000, maxBatch: 500, maxConcurrent: 1, ...options });

type Settled = { status: "stored"; id: string; duplicate: boolean } | { status: "refused"; error: Error };
const settle = (promise: Promise<{ id: string; duplicate: boolean } | null>): Promise<Settled> =>
  promise.then((r) => ({ status: "stored" as const, id: r!.id, duplicate: r!.duplicate }), (error: Error) => ({ status: "refused" as const, error }));

describe("a shared batch with a row the database refuses", () => {
  it("stores every other row with its job and refuses only the guilty ones, with 422 and never 503", async () => {
    const c = committer();
    // The first store goes out alone at once; everything stored while it is in flight waits and goes as one batch.
    const plug = settle(c.store(delivery(endpointB)));
    const poison = [
      delivery(endpointA, { eventType: "nul\u0000inside" }), // text cannot hold \u0000
      delivery(endpointA, { eventType: "lone \ud800 surrogate" }), // invalid JSON for PostgreSQL: fails the whole document
      delivery(endpointA, { externalId: randomBytes(1_500).toString("hex") }), // 3,000 bytes: over the btree row limit
      delivery(endpointA, { eventType: randomBytes(2_000).toString("hex") }), // 4,000 characters in the event type index
    ];
    const valid = Array.from({ length: 120 }, (_, i) => delivery(i % 3 === 0 ? endpointA : endpointB));
    const mixed = [...valid.slice(0, 40), poison[0]!, ...valid.slice(40, 80), poison[1]!, poison[2]!, ...valid.slice(80), poison[3]!];
    const outcomes = await Promise.all(mixed.map((d) => settle(c.store(d))));
    expect((await plug).status).toBe("stored");

    const byId = new Map(mixed.map((d, i) => [d.id, outcomes[i]!]));
    for (const d of valid) expect(byId.get(d.id)).toEqual({ status: "stored", id: d.id, duplicate: false });
    for (const d of poison) {
      const outcome = byId.get(d.id)!;
      expect(outcome.status).toBe("refused");
      const { error } = outcome as { error: Error };
      expect(error).toBeInstanceOf(UnstorableDeliveryError);
      expect((error as UnstorableDeliveryError).status).toBe(422);
    }
    const stored = await getSql()`
      select d.id, exists (select 1 from graphile_worker._private_jobs j where j.payload ->> 'deliveryId' = d.id) as has_job
      from deliveries d where d.id = any(${mixed.map((d) => d.id)})`;
    expect(stored.map((r) => r.id).sort()).toEqual(valid.map((d) => d.id).sort());
    expect(stored.every((r) => r.has_job)).toBe(true);
  });

  it("still answers each of the batch's duplicates with the stored id", async () => {
    const c = committer();
    const first = delivery(endpointB, { externalId: "evt_dup_after_split" });
    await c.store(first);
    const plug = settle(c.store(delivery(endpointB)));
    const again = delivery(endpointB, { externalId: "evt_dup_after_split" });
    const [dup, bad, fresh] = await Promise.all([again, delivery(endpointA, { eventType: "\u0000" }), delivery(endpointA)].map((d) => settle(c.store(d))));
    await plug;
    expect(dup).toEqual({ status: "stored", id: first.id, duplicate: true });
    expect(bad!.status).toBe("refused");
    expect(fresh!.status).toBe("stored");
  });
});

describe("payloads", () => {
  it("are stored with their deliveries in the same statement, byte for byte, and a duplicate keeps the first one's", async () => {
    const c = committer({ largeBodyBytes: 64 * 1024 });
    const first = delivery(endpointA, { externalId: "evt_payload_dup", body: Buffer.from("first") });
    await c.store(first);
    const binary = Buffer.from([0xff, 0x00, 0xfe, 0x5c, 0x80, 0x7b]);
    const fresh = [
      delivery(endpointA, { body: binary, headers: { "content-type": "application/octet-stream", "x-tag": "bin" } }),
      delivery(endpointB, { body: randomBytes(200 * 1024) }), // the big-body lane
      ...Array.from({ length: 20 }, () => delivery(endpointB)),
    ];
    const again = delivery(endpointA, { externalId: "evt_payload_dup", body: Buffer.from("second"), headers: { "x-second": "yes" } });
    const outcomes = await Promise.all([...fresh, again].map((d) => settle(c.store(d))));
    expect(outcomes.at(-1)).toEqual({ status: "stored", id: first.id, duplicate: true });
    const payloads = await getSql()<{ delivery_id: string; organization_id: string; headers: Record<string, string>; body: Buffer }[]>`
      select delivery_id, organization_id, headers, body from delivery_payloads where delivery_id = any(${[first, ...fresh, again].map((d) => d.id)})`;
    const byId = new Map(payloads.map((p) => [p.delivery_id, p]));
    expect(byId.size).toBe(fresh.length + 1);
    expect(byId.has(again.id)).toBe(false);
    for (const d of [first, ...fresh]) {
      const stored = byId.get(d.id)!;
      expect(stored.organization_id).toBe(d.organizationId);
      expect(stored.headers).toEqual(d.headers);
      expect(Buffer.compare(stored.body, d.body), d.id).toBe(0);
    }
  });
});

describe("a batch that fails for the store's sake", () => {
  it("answers all its rows 503 without splitting it, and keeps nothing", async () => {
    const quick = postgres(database.url(), { max: 1, onnotice: () => {}, connection: { statement_timeout: 300 } });
    const c = new GroupCommitter(() => quick, { timeoutMs: 8_000, statementTimeoutMs: 300, maxBatch: 500, maxConcurrent: 1 });
    const locker = postgres(database.url(), { max: 1, onnotice: () => {} });
    const rows = [delivery(endpointA), delivery(endpointB), delivery(endpointA, { eventType: "\u0000" })];
    try {
      await locker.begin(async (tx) => {
        await tx`lock table deliveries in access exclusive mode`;
        // The statement is cut off by the server (57014): nothing row-caused, so no retry apart.
        const outcomes = await Promise.all(rows.map((d) => settle(c.store(d))));
        for (const outcome of outcomes) expect((outcome as { error: Error }).error).toBeInstanceOf(StoreUnavailableError);
      });
    } finally {
      await Promise.all([locker.end(), quick.end()]);
    }
    const [{ count }] = await getSql()`select count(*)::int from deliveries where id = any(${rows.map((d) => d.id)})`;
    expect(count).toBe(0);
  });
});

describe("big bodies", () => {
  it("are each stored by a statement of their own, and small ones arriving beside them all commit", async () => {
    const c = committer({ maxConcurrent: 2, largeBodyBytes: 64 * 1024 });
    const big = Array.from({ length: 4 }, () => delivery(endpointA, { body: randomBytes(2 * 1_048_576) }));
    const small = Array.from({ length: 60 }, () => delivery(endpointB));
    const outcomes = await Promise.all([...big, ...small].map((d) => settle(c.store(d))));
    expect(outcomes.every((o) => o.status === "stored")).toBe(true);
    // A statement's rows share its transaction's now(): a big body shares its received_at with no other row.
    const rows = await getSql()`select id, received_at::text as at, size_bytes from deliveries where id = any(${[...big, ...small].map((d) => d.id)})`;
    const bigIds = new Set(big.map((d) => d.id));
    const timestamps = new Map<string, number>();
    for (const row of rows) timestamps.set(row.at, (timestamps.get(row.at) ?? 0) + 1);
    for (const row of rows.filter((r) => bigIds.has(r.id))) {
      expect(row.size_bytes).toBe(2 * 1_048_576);
      expect(timestamps.get(row.at)).toBe(1);
    }
    // The small ones went in shared batches (fewer statements than rows).
    expect(new Set(rows.filter((r) => !bigIds.has(r.id)).map((r) => r.at)).size).toBeLessThan(small.length);
  });
});

describe("a batch shared by a paused endpoint and an active one", () => {
  it("stores the paused endpoint's rows parked in order of arrival, with no job, and gives the others theirs", async () => {
    const org = await createOrganizationFixture("Org P");
    const paused = await createEndpoint({ ctx: org.ctx, input: { name: "P", provider: "none", destinationUrl: "http://127.0.0.1:9/", paused: true } });
    const endpointP = { id: paused.id, organizationId: org.organizationId };
    const c = committer();
    const plug = settle(c.store(delivery(endpointB))); // goes alone; the rest wait and go as one batch
    const rows = Array.from({ length: 30 }, (_, i) => delivery(i % 2 === 0 ? endpointP : endpointA));
    const outcomes = await Promise.all(rows.map((d) => settle(c.store(d))));
    expect((await plug).status).toBe("stored");
    expect(outcomes.every((o) => o.status === "stored")).toBe(true);

    const stored = await getSql()`
      select d.id, d.endpoint_id, d.parked_at, d.received_at::text as at,
        (select count(*)::int from graphile_worker._private_jobs j where j.payload->>'deliveryId' = d.id) as jobs
      from deliveries d where d.id = any(${rows.map((d) => d.id)})`;
    const byId = new Map(stored.map((row) => [row.id as string, row]));
    expect(new Set(stored.map((row) => row.at)).size).toBe(1); // one statement
    for (const d of rows) {
      const row = byId.get(d.id)!;
      if (d.endpointId === endpointP.id) expect(row).toMatchObject({ jobs: 0, parked_at: expect.any(Date) });
      else expect(row).toMatchObject({ jobs: 1, parked_at: null });
    }
    // Parked in the batch's order: they leave in parked_at order when the endpoint resumes.
    const parkedOrder = await getSql()`select id from deliveries where endpoint_id = ${endpointP.id} and parked_at is not null order by parked_at, id`;
    expect(parkedOrder.map((row) => row.id)).toEqual(rows.filter((d) => d.endpointId === endpointP.id).map((d) => d.id));
  });
});
