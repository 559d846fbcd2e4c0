// bench/index-bodies: how fast the body indexer (lib/delivery/index-bodies.ts) makes stored bodies searchable,
// with its rests (INDEX_BODIES_BUSY_SHARE) and without. Above that rate, sustained, ingest stores bodies faster
// than they become searchable: the wait grows (a search still finds them, by testing each: only slower) and
// shrinks again once the rate falls. Seeds unsearchable payloads straight into a fresh database (as ingest
// stores them), then runs the product's own indexBodies passes until none is left, per share and round,
// printing bodies per second and this database's PostgreSQL CPU per body. Prints its figures; asserts nothing.
//   npm run bench:index-bodies
//   BENCH_BODIES=n         bodies per measurement (default 6,000), over BENCH_ORGANIZATIONS (5) organizations
//   BENCH_SHARES=a,b       busy shares to measure (default "0.25,1": the default, and no rests)
//   BENCH_ROUNDS=n         times each share is measured (default 2)
//   BENCH_BODY             realistic, padded or entropy[:KiB] (bench/support/signed-webhook.ts)
import { cpus, loadavg } from "node:os";
import { getSql } from "@/db";
import { indexBodies, indexBodiesSettings } from "@/lib/delivery/index-bodies";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { newId } from "@/lib/ids";
import { createOrganizationFixture } from "@/test/fixtures";
import { CpuMeter } from "../support/cpu";
import { runBench } from "../support/run-bench";
import { BENCH_BODY, benchBodyLabel } from "../support/signed-webhook";

const BODIES = Number(process.env.BENCH_BODIES ?? 6_000);
const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 5);
const SHARES = (process.env.BENCH_SHARES ?? "0.25,1").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CHUNK = 200;

interface Tenant { organizationId: string; endpointId: string }

/** BODIES delivered deliveries whose payloads wait for the indexer, spread over the tenants. */
async function storeUnsearchable(tenants: Tenant[]): Promise<void> {
  const sql = getSql();
  for (let stored = 0; stored < BODIES; stored += CHUNK) {
    const ids = Array.from({ length: Math.min(CHUNK, BODIES - stored) }, () => newId("dlv"));
    const owners = ids.map((_, k) => tenants[k % tenants.length]!);
    const bodies = ids.map((id) => BENCH_BODY.make(id, "invoice.paid"));
    await sql`
      insert into deliveries (id, organization_id, endpoint_id, external_id, event_type, status, size_bytes)
      select id, organization_id, endpoint_id, id, 'invoice.paid', 'delivered', octet_length(body)
      from unnest(${ids}::text[], ${owners.map((o) => o.organizationId)}::text[], ${owners.map((o) => o.endpointId)}::text[], ${bodies}::text[])
        as u(id, organization_id, endpoint_id, body)`;
    await sql`
      insert into delivery_payloads (delivery_id, organization_id, headers, body)
      select id, organization_id, '{"content-type": "application/json"}'::jsonb, convert_to(body, 'UTF8')
      from unnest(${ids}::text[], ${owners.map((o) => o.organizationId)}::text[], ${bodies}::text[]) as u(id, organization_id, body)`;
  }
}

runBench("inbox_bench_index_bodies", async ({ database }) => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  const tenants: Tenant[] = [];
  for (let i = 0; i < ORGANIZATIONS; i++) {
    const { ctx, organizationId } = await createOrganizationFixture(`Bench indexer ${i}`);
    const endpoint = await createEndpoint({ ctx, input: { name: `indexer-${i}`, provider: "none", destinationUrl: "http://127.0.0.1:9/" } });
    tenants.push({ organizationId, endpointId: endpoint.id });
  }
  console.log(`bench/index-bodies: ${BODIES.toLocaleString("en")} bodies (${benchBodyLabel()}) over ${ORGANIZATIONS} organizations per measurement, on this ${cpus().length}-core machine`);
  console.log("| busy share | round | bodies | seconds | bodies / s | PostgreSQL CPU µs per body | passes |");
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (let round = 1; round <= ROUNDS; round++) {
    for (const busyShare of SHARES) {
      await storeUnsearchable(tenants);
      const settings = { ...indexBodiesSettings(), busyShare };
      const meter = await new CpuMeter({ database }).start();
      const started = performance.now();
      let indexed = 0;
      let passes = 0;
      for (let after = ""; ; passes++) {
        const pass = await indexBodies({ after, settings });
        indexed += pass.indexed;
        after = pass.after;
        if (!pass.more && pass.indexed === 0) break;
      }
      const seconds = (performance.now() - started) / 1000;
      const cpu = await meter.stop();
      console.log(`| ${busyShare} | ${round} | ${indexed} | ${seconds.toFixed(1)} | ${(indexed / seconds).toFixed(0)} | ${((cpu.database * 1e6) / Math.max(1, indexed)).toFixed(0)} | ${passes} |`);
    }
  }
  console.log(`machine: load average ${loadavg().map((n) => n.toFixed(1)).join(" ")} at the end (other work included)`);
});
