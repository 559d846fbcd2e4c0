// Indexes built online (db/online-indexes.ts) do not stop ingest's writes, and a build that was
// interrupted is noticed and made again. Ordering is asserted, durations are only printed.
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverJobSpec, enqueueRaw } from "@/lib/queue/enqueue";
import { useTestDatabase } from "@/test/db";
import { buildOnlineIndexes } from "./build-online-indexes";

const database = useTestDatabase();
const ROWS = 100_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let sql: postgres.Sql;
let sequence = 0;

beforeAll(async () => {
  sql = postgres(database.url(), { max: 4, onnotice: () => {} });
  await sql`insert into organizations (id, name) values ('org_online', 'Online')`;
  await sql`insert into endpoints (id, organization_id, name, provider) values ('ep_online', 'org_online', 'Online', 'none')`;
  await sql`insert into destinations (id, organization_id, endpoint_id, name, url, is_default)
    values ('dst_online', 'org_online', 'ep_online', 'Default', 'http://127.0.0.1:9/', true)`;
  await sql`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes)
    select 'dlv_big_' || g, 'org_online', 'ep_online', 'dst_online', 'big_' || g, 'delivered', 200
    from generate_series(1, ${ROWS}) g`;
  await sql`analyze deliveries`;
  // graphile-worker's first job of a task inserts the task's row: done once here, so the in-flight
  // transactions below do not hold that row and make the others wait for it.
  await sql.begin((tx) => ingestLike(tx));
});
afterAll(async () => {
  await sql?.end();
});

/** What ingest does: a delivery row and its job in one transaction. */
async function ingestLike(client: postgres.Sql | postgres.TransactionSql) {
  const id = `dlv_online_${sequence++}`;
  await client`with d as (insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, size_bytes)
      values (${id}, 'org_online', 'ep_online', 'dst_online', ${id}, 2) returning id, organization_id)
    insert into delivery_payloads (delivery_id, organization_id, headers, body) select id, organization_id, '{}', ${Buffer.from("{}")} from d`;
  await enqueueRaw(client, [deliverJobSpec({ deliveryId: id, destinationId: "dst_online", trigger: "auto", unkeyed: true })]);
}

/** A connection of its own, with its backend's pid, for watching it from another. */
async function connection() {
  const client = postgres(database.url(), { max: 1, onnotice: () => {} });
  const [{ pid }] = await client<{ pid: number }[]>`select pg_backend_pid() as pid`;
  return { client, pid };
}

const activity = async (pid: number) =>
  (await sql<{ query: string; state: string; wait_event_type: string | null }[]>`select query, state, wait_event_type from pg_stat_activity where pid = ${pid}`)[0];

/** Until the build on `pid` waits for the ingest transaction in flight (past its start, so its index is in the catalog). */
async function untilBuildWaits(pid: number) {
  for (let i = 0; i < 400; i++) {
    const now = await activity(pid);
    if (now?.state === "active" && /^create index/i.test(now.query) && now.wait_event_type === "Lock") return;
    await sleep(25);
  }
  throw new Error(`the index build on backend ${pid} never waited for the transaction in flight`);
}

const indexState = async (name: string) =>
  (await sql<{ oid: number; valid: boolean; definition: string }[]>`
    select i.indexrelid::int as oid, i.indisvalid as valid, pg_get_indexdef(i.indexrelid) as definition
    from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = ${name}`)[0];

describe("an index built online on a big table", () => {
  it("lets ingest's inserts commit while it is being built", async () => {
    const index = { name: "deliveries_online_test_idx", on: "deliveries (organization_id, size_bytes, received_at)" };
    const builder = await connection();
    const writer = await connection();
    // An ingest transaction in flight when the build starts: the build must wait for it, which holds
    // the build open long enough for the inserts below to land inside it, whatever the machine's speed.
    const inFlight = await sql.reserve();
    const events: string[] = [];
    try {
      await inFlight`begin`;
      await ingestLike(inFlight);
      const started = performance.now();
      const build = buildOnlineIndexes(builder.client, [index]).then(() => void events.push("build finished"));
      await untilBuildWaits(builder.pid);

      // Another ingest transaction, while the build runs: it must commit, never queueing for a lock.
      let blocked = false;
      let insertDone = false;
      const insert = writer.client.begin((tx) => ingestLike(tx)).then(() => void events.push("insert committed")).finally(() => (insertDone = true));
      while (!insertDone && !blocked) {
        blocked = (await activity(writer.pid))?.wait_event_type === "Lock";
        if (blocked) console.log(`[online index] the insert waits for ${JSON.stringify(await sql`select locktype, relation::regclass::text, mode from pg_locks where pid = ${writer.pid} and not granted`)}`);
        await sleep(10);
      }
      await inFlight`commit`;
      // More inserts through the build's own work on the table, counted, not timed.
      let during = 0;
      let buildDone = false;
      void build.finally(() => (buildDone = true));
      while (!buildDone) {
        await writer.client.begin((tx) => ingestLike(tx));
        if (!buildDone) during++;
      }
      await Promise.all([build, insert]);
      console.log(`[online index] ${ROWS} rows: built in ${Math.round(performance.now() - started)} ms; ${during} more ingest transactions committed while it ran`);

      expect(blocked).toBe(false);
      expect(events).toEqual(["insert committed", "build finished"]);
      expect(await indexState(index.name)).toMatchObject({ valid: true });
    } finally {
      await inFlight`rollback`.catch(() => {});
      inFlight.release();
      await builder.client.end();
      await writer.client.end();
    }
  });

  it("builds again an index an interrupted build left invalid, and leaves a valid one alone", async () => {
    const index = { name: "deliveries_interrupted_test_idx", on: "deliveries (endpoint_id, size_bytes)" };
    // deliveries is partitioned: what a build leaves behind is a partition's index (the rows above are in the legacy one).
    const partitionIndex = "deliveries_legacy_interrupted_test_idx";
    const builder = await connection();
    const inFlight = await sql.reserve();
    try {
      // A build cancelled while it waits for an ingest transaction: PostgreSQL keeps the index, marked invalid.
      await inFlight`begin`;
      await ingestLike(inFlight);
      const cancelled = builder.client.unsafe(`create index concurrently ${partitionIndex} on deliveries_legacy (endpoint_id, size_bytes)`).then(() => "built", (error: Error) => error.message);
      await untilBuildWaits(builder.pid);
      await sql`select pg_cancel_backend(${builder.pid})`;
      expect(await cancelled).toMatch(/canceling statement/);
      await inFlight`commit`;
      const invalid = await indexState(partitionIndex);
      expect(invalid).toMatchObject({ valid: false });

      await buildOnlineIndexes(sql, [index]);
      const rebuilt = await indexState(index.name);
      expect(rebuilt).toMatchObject({ valid: true });
      expect(rebuilt!.definition).toContain("(endpoint_id, size_bytes)");
      const partitionRebuilt = await indexState(partitionIndex);
      expect(partitionRebuilt).toMatchObject({ valid: true });
      expect(partitionRebuilt!.oid).not.toBe(invalid!.oid);
      // Every partition has its copy, attached: the parent's index is used for all of them.
      const copies = await sql`select count(*)::int as n from pg_partition_tree(${index.name}::regclass) where isleaf`;
      const partitions = await sql`select count(*)::int as n from pg_partition_tree('deliveries') where isleaf`;
      expect(copies[0]!.n).toBe(partitions[0]!.n);

      await buildOnlineIndexes(sql, [index]);
      expect((await indexState(index.name))!.oid).toBe(rebuilt!.oid);
      expect((await indexState(partitionIndex))!.oid).toBe(partitionRebuilt!.oid);
    } finally {
      await inFlight`rollback`.catch(() => {});
      inFlight.release();
      await builder.client.end();
    }
  });

  it("drops the indexes it replaces once it is built (also when a migrate stopped in between), and no other", async () => {
    await sql`create index deliveries_replaced_test_idx on deliveries (endpoint_id, received_at)`;
    await sql`create index deliveries_replaced_earlier_test_idx on deliveries (endpoint_id, received_at)`;
    await sql`create index deliveries_bystander_test_idx on deliveries (endpoint_id, received_at)`;
    const index = {
      name: "deliveries_replacing_test_idx",
      on: "deliveries (endpoint_id, size_bytes)",
      replaces: ["deliveries_replaced_test_idx", "deliveries_replaced_earlier_test_idx"],
    };
    await buildOnlineIndexes(sql, [index]);
    expect(await indexState(index.name)).toMatchObject({ valid: true });
    expect(await indexState("deliveries_replaced_test_idx")).toBeUndefined();
    expect(await indexState("deliveries_replaced_earlier_test_idx")).toBeUndefined();
    expect(await indexState("deliveries_bystander_test_idx")).toMatchObject({ valid: true });
    // A later migrate finds it built and the old one gone: nothing to do, nothing fails.
    await buildOnlineIndexes(sql, [index]);
    expect(await indexState(index.name)).toMatchObject({ valid: true });
    // A migrate that stopped after the build, before the drop: the next one drops it.
    await sql`create index deliveries_replaced_test_idx on deliveries (endpoint_id, received_at)`;
    await buildOnlineIndexes(sql, [index]);
    expect(await indexState("deliveries_replaced_test_idx")).toBeUndefined();
  });
});
