// Bodies become searchable off the acknowledgement: ingest's shared statement makes no word-index entry, and the
// indexer serves organizations by turns, so one organization's big bodies wait behind nobody's but its own.
import { defaultLanes } from "@/lib/destinations/route-request";
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { configFrom } from "@/lib/config/config";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { newId } from "@/lib/ids";
import { GroupCommitter } from "@/lib/ingest/group-commit";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { indexBodiesTask } from "@/jobs/index-bodies";
import { indexBodies, indexBodiesSettings } from "./index-bodies";
import { listDeliveries } from "@/lib/delivery/list-deliveries";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;
const orgs: Array<{ org: Org; endpointId: string }> = [];
beforeAll(async () => {
  await getSql()`create extension if not exists pageinspect`;
  for (const name of ["One", "Two"]) {
    const org = await createOrganizationFixture(name);
    const endpoint = await createEndpoint({ ctx: org.ctx, input: { name, provider: "none", destinationUrl: "http://127.0.0.1:9/" } });
    orgs.push({ org, endpointId: endpoint.id });
  }
  // The organization first in id order is the heavy one: served first, it is the one that could hold the other up.
  orgs.sort((a, b) => (a.org.organizationId < b.org.organizationId ? -1 : 1));
});

/**
 * Heap tuples waiting in the GIN index's pending lists (one per partition: the parent's index has no pages of
 * its own): entries made since its last clean-up (no VACUUM runs here).
 */
async function wordEntriesPending(): Promise<number> {
  const [row] = await getSql()<{ n: string }[]>`
    select coalesce(sum((gin_metapage_info(get_raw_page(relid::text, 0))).n_pending_tuples), 0)::text as n
    from pg_partition_tree('delivery_payloads_body_by_bucket_words_idx') where isleaf`;
  return Number(row!.n);
}

const waiting = async (organizationId: string) =>
  Number((await getSql()<{ n: string }[]>`select count(*)::text as n from delivery_payloads where organization_id = ${organizationId} and not searchable`)[0]!.n);

/** A high-entropy body just under the word index's 64 KiB: the worst case for its entries. */
const heavyBody = () => Buffer.from(JSON.stringify({ words: Array.from({ length: 3_600 }, () => randomBytes(8).toString("hex")).join(" ") }));

describe("the body's word entries", () => {
  it("are not made by ingest's statement, and a pass makes them; the body is found by search before and after", async () => {
    const { org, endpointId } = orgs[1]!;
    const committer = new GroupCommitter(() => getSql(), { timeoutMs: 8_000, statementTimeoutMs: 5_000, maxBatch: 500, maxConcurrent: 1 });
    const id = newId("dlv");
    const before = await wordEntriesPending();
    await committer.store({
      id, organizationId: org.organizationId, endpointId, lanes: defaultLanes(id, endpointId), externalId: `evt_${id}`, eventType: "order.created",
      headers: { "content-type": "application/json" }, body: Buffer.from('{"note":"a quokka arrived"}'), sourceIp: null,
    });
    expect(await wordEntriesPending()).toBe(before);
    expect(await waiting(org.organizationId)).toBe(1);
    // A window of 1: the search reaches the indexes' route, where a body not indexed yet is tested by itself.
    process.env.INBOX_SEARCH_WINDOW = "1";
    try {
      expect((await listDeliveries({ ctx: org.ctx, input: { q: "QUOKKA" } })).data.map((d) => d.id)).toEqual([id]);
      const pass = await indexBodies();
      expect(pass).toMatchObject({ indexed: 1, more: false });
      expect(await wordEntriesPending()).toBe(before + 1);
      expect(await waiting(org.organizationId)).toBe(0);
      expect((await listDeliveries({ ctx: org.ctx, input: { q: "QUOKKA" } })).data.map((d) => d.id)).toEqual([id]);
    } finally {
      delete process.env.INBOX_SEARCH_WINDOW;
    }
    expect(await indexBodies()).toMatchObject({ indexed: 0, turns: 0, more: false });
  });
});

describe("the indexer's turns", () => {
  it("serve every organization in turn, so one's backlog of big bodies does not hold up another's", async () => {
    const [heavy, light] = orgs;
    for (let i = 0; i < 12; i++) await createDeliveryFixture({ ctx: heavy!.org.ctx, endpointId: heavy!.endpointId, body: heavyBody(), enqueue: false });
    const lightOne = await createDeliveryFixture({ ctx: light!.org.ctx, endpointId: light!.endpointId, body: '{"note":"small"}', enqueue: false });
    // One turn a pass (a pass takes one turn at least), each turn at most 128 KiB of body: two or three heavy bodies.
    const settings = { ...indexBodiesSettings(configFrom({})), bytesPerTurn: 131_072, runMs: 1 };
    const first = await indexBodies({ settings });
    expect(first).toMatchObject({ turns: 1, after: heavy!.org.organizationId, more: true });
    expect(first.indexed).toBeGreaterThanOrEqual(2);
    expect(first.indexed).toBeLessThanOrEqual(3);
    const second = await indexBodies({ settings, after: first.after });
    expect(second).toMatchObject({ turns: 1, indexed: 1 });
    const [{ searchable }] = await getSql()<{ searchable: boolean }[]>`select searchable from delivery_payloads where delivery_id = ${lightOne.id}`;
    expect(searchable).toBe(true);
    expect(await waiting(heavy!.org.organizationId)).toBe(12 - first.indexed);
    // The rest, in passes that go on where the last stopped.
    let after = second.after;
    for (let passes = 0; passes < 20 && (await waiting(heavy!.org.organizationId)) > 0; passes++) after = (await indexBodies({ settings, after })).after;
    expect(await waiting(heavy!.org.organizationId)).toBe(0);
  });

  it("ask for the next pass, whether or not they found bodies, one waiting at a time", async () => {
    const { org, endpointId } = orgs[1]!;
    const nextPass = async () => (await getSql()<{ n: string }[]>`
      select count(*)::text as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = 'index-bodies'`)[0]!.n;
    await getSql()`delete from graphile_worker._private_jobs j using graphile_worker._private_tasks t where t.id = j.task_id and t.identifier = 'index-bodies'`.catch(() => undefined);
    await createDeliveryFixture({ ctx: org.ctx, endpointId, body: '{"note":"chain"}', enqueue: false });
    const helpers = { abortSignal: new AbortController().signal } as Parameters<typeof indexBodiesTask>[1];
    await indexBodiesTask({}, helpers);
    expect(await nextPass()).toBe("1");
    // Nothing left: the next pass is asked for all the same, and replaces the one waiting.
    await indexBodiesTask({}, helpers);
    expect(await nextPass()).toBe("1");
    const [job] = await getSql()<{ payload: { after: string } }[]>`
      select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id where t.identifier = 'index-bodies'`;
    expect(job!.payload).toEqual({ after: expect.any(String) });
  });
});
