// bench/index-bodies: how fast the body indexer (lib/search/index-bodies.ts) makes stored bodies searchable,
// with its rests (INDEX_BODIES_BUSY_SHARE) and without. Above that rate, sustained, ingest stores bodies faster
// than they become searchable: the wait grows (a search still finds them, by testing each: only slower) and
// shrinks again once the rate falls. Seeds unsearchable payloads straight into a fresh database (as ingest
// stores them), then runs the product's own indexBodies passes until none is left, per share and round,
// printing bodies per second, this database's PostgreSQL CPU per body and the server's WAL per body, with each
// body index in turn: the word index (delivery_payloads_body_by_bucket_words_idx, db/online-indexes.ts), then the
// trigram index it replaced (#46: the word index is to cost at most a third of it), built for the comparison.
// Last, the same passes with no body index: what a turn costs without one, so an index's own share is the
// difference. Prints its figures; asserts nothing.
//   npm run bench:index-bodies
//   BENCH_BODIES=n         bodies per measurement (default 6,000), over BENCH_ORGANIZATIONS (5) organizations
//   BENCH_SHARES=a,b       busy shares to measure (default "0.25,1": the default, and no rests)
//   BENCH_ROUNDS=n         times each share is measured (default 2), and the passes without an index
//   BENCH_INDEXES=a,b      body indexes to measure (default "words,trigrams")
//   BENCH_BODY             realistic, padded or entropy[:KiB] (bench/support/signed-webhook.ts)
import { cpus, loadavg } from "node:os";
import { getSql } from "@/db";
import { indexBodies, indexBodiesSettings } from "@/lib/search/index-bodies";
import { ONLINE_INDEXES, type OnlineIndex } from "@/db/online-indexes";
import { buildOnlineIndexes } from "@/lib/runtime/build-online-indexes";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { newId } from "@/lib/ids";
import { createOrganizationFixture } from "@/test/fixtures";
import { CpuMeter } from "../support/cpu";
import type { BenchDatabase } from "../support/database";
import { runBench } from "../support/run-bench";
import { BENCH_BODY, benchBodyLabel } from "../support/signed-webhook";

const BODIES = Number(process.env.BENCH_BODIES ?? 6_000);
const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 5);
const SHARES = (process.env.BENCH_SHARES ?? "0.25,1").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CHUNK = 200;
const INDEXES = (process.env.BENCH_INDEXES ?? "words,trigrams").split(",");

interface Tenant { organizationId: string; endpointId: string }

/** BODIES delivered deliveries whose payloads wait for the indexer, spread over the tenants. */
async function storeUnsearchable(tenants: Tenant[]): Promise<void> {
  const sql = getSql();
  for (let stored = 0; stored < BODIES; stored += CHUNK) {
    const ids = Array.from({ length: Math.min(CHUNK, BODIES - stored) }, () => newId("dlv"));
    const owners = ids.map((_, k) => tenants[k % tenants.length]!);
    const bodies = ids.map((id) => BENCH_BODY.make(id, "invoice.paid"));
    await sql`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, event_type, status, size_bytes)
      select id, organization_id, endpoint_id, 'dst_' || substr(endpoint_id, 4), id, 'invoice.paid', 'delivered', octet_length(body)
      from unnest(${ids}::text[], ${owners.map((o) => o.organizationId)}::text[], ${owners.map((o) => o.endpointId)}::text[], ${bodies}::text[])
        as u(id, organization_id, endpoint_id, body)`;
    await sql`
      insert into delivery_payloads (delivery_id, organization_id, headers, body)
      select id, organization_id, '{"content-type": "application/json"}'::jsonb, convert_to(body, 'UTF8')
      from unnest(${ids}::text[], ${owners.map((o) => o.organizationId)}::text[], ${bodies}::text[]) as u(id, organization_id, body)`;
  }
}

const WORD_INDEX = ONLINE_INDEXES.find((index) => index.name === "delivery_payloads_body_by_bucket_words_idx")!;
/** The trigram index as migration 0031 had it built (replaced by WORD_INDEX in 0048). */
const TRIGRAM_INDEX: OnlineIndex = {
  name: "delivery_payloads_body_by_bucket_trgm_idx",
  on: `"delivery_payloads" using gin (left("delivery_id", 10), encode("body", 'escape') gin_trgm_ops) where "searchable" and octet_length("body") <= 65536`,
};
const BODY_INDEXES: Record<string, OnlineIndex> = { words: WORD_INDEX, trigrams: TRIGRAM_INDEX };

/** Only `index` on the bodies (none: undefined), built online as a migrate does. */
async function useBodyIndex(index?: OnlineIndex): Promise<void> {
  for (const other of Object.values(BODY_INDEXES)) await getSql().unsafe(`drop index if exists ${other.name}`);
  if (index) await buildOnlineIndexes(getSql(), [index]);
}

/** The server's WAL position in bytes: WAL per body is the difference over a measurement (the whole server's). */
async function walBytes(): Promise<bigint> {
  const [row] = await getSql()<{ lsn: string }[]>`select (pg_current_wal_lsn() - '0/0'::pg_lsn)::text as lsn`;
  return BigInt(row!.lsn.split(".")[0]!);
}

/**
 * Merges the body index's pending list (GIN's fastupdate) on every partition, as a later turn or vacuum would:
 * counted in the measurement, so that no entry's cost is left for the next one.
 */
async function mergePendingEntries(): Promise<void> {
  for (const index of Object.values(BODY_INDEXES)) {
    await getSql()`
      select gin_clean_pending_list(i.inhrelid::regclass) from pg_inherits i
      where i.inhparent = to_regclass(${index.name})`;
  }
}

interface Measured { indexed: number; seconds: number; cpuMicrosPerBody: number; walBytesPerBody: number; passes: number }

/** The product's passes until no body waits and their pending entries merged, timed, with this database's CPU and the server's WAL. */
async function indexAll(database: BenchDatabase, busyShare: number): Promise<Measured> {
  const settings = { ...indexBodiesSettings(), busyShare };
  const meter = await new CpuMeter({ database }).start();
  const walAtStart = await walBytes();
  const started = performance.now();
  let indexed = 0;
  let passes = 0;
  for (let after = ""; ; passes++) {
    const pass = await indexBodies({ after, settings });
    indexed += pass.indexed;
    after = pass.after;
    if (!pass.more && pass.indexed === 0) break;
  }
  await mergePendingEntries();
  const seconds = (performance.now() - started) / 1000;
  const cpu = await meter.stop();
  const wal = Number((await walBytes()) - walAtStart);
  const per = Math.max(1, indexed);
  return { indexed, seconds, cpuMicrosPerBody: (cpu.database * 1e6) / per, walBytesPerBody: wal / per, passes };
}

const row = (label: string, round: number, m: Measured) =>
  `| ${label} | ${round} | ${m.indexed} | ${m.seconds.toFixed(1)} | ${(m.indexed / m.seconds).toFixed(0)} | ${m.cpuMicrosPerBody.toFixed(0)} | ${(m.walBytesPerBody / 1024).toFixed(1)} | ${m.passes} |`;

runBench("inbox_bench_index_bodies", async ({ database }) => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  const tenants: Tenant[] = [];
  for (let i = 0; i < ORGANIZATIONS; i++) {
    const { ctx, organizationId } = await createOrganizationFixture(`Bench indexer ${i}`);
    const endpoint = await createEndpoint({ ctx, input: { name: `indexer-${i}`, provider: "none", destinationUrl: "http://127.0.0.1:9/" } });
    tenants.push({ organizationId, endpointId: endpoint.id });
  }
  console.log(`bench/index-bodies: ${BODIES.toLocaleString("en")} bodies (${benchBodyLabel()}) over ${ORGANIZATIONS} organizations per measurement, on this ${cpus().length}-core machine`);
  console.log("| body index, busy share | round | bodies | seconds | bodies / s | PostgreSQL CPU µs per body | WAL KiB per body | passes |");
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const name of INDEXES) {
    await useBodyIndex(BODY_INDEXES[name] ?? (() => { throw new Error(`BENCH_INDEXES: no body index "${name}"`); })());
    for (let round = 1; round <= ROUNDS; round++) {
      for (const busyShare of SHARES) {
        await storeUnsearchable(tenants);
        console.log(row(`${name}, ${busyShare}`, round, await indexAll(database, busyShare)));
      }
    }
  }
  // The same turns (the row's update, its other indexes, the vacuum they owe) without a body index's entries.
  await useBodyIndex(undefined);
  for (let round = 1; round <= ROUNDS; round++) {
    await storeUnsearchable(tenants);
    console.log(row("no body index, 1", round, await indexAll(database, 1)));
  }
  console.log("WAL is the whole server's: other databases' writes meanwhile count too.");
  console.log(`machine: load average ${loadavg().map((n) => n.toFixed(1)).join(" ")} at the end (other work included)`);
});
