// bench/pull: pull against push in one run (#44). The product as deployed (web server and worker); the same
// stored backlog of realistic signed webhooks handed out twice:
//   push   the worker delivers an endpoint's backlog to a local destination answering 200 (resumed after the flood);
//   pull   one client takes a pull destination's backlog in pulls of `max` (100), POSTs each delivery to the same local
//          destination, and acknowledges the batch: what `inbox listen` does, batched.
// Per phase: deliveries per second, and CPU per delivery of PostgreSQL, the web server and the worker. Prints its
// figures; asserts nothing. Run it on a quiet machine (no test run, build or helper beside it).
//   npm run bench:pull [-- --backlog 5000 --max 100 --connections 32]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { createDestination } from "@/lib/destinations/create-destination";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { updateEndpoint } from "@/lib/endpoints/update-endpoint";
import { createOrganizationFixture } from "@/test/fixtures";
import { CpuMeter, type CpuUse } from "../support/cpu";
import { flood } from "../support/flood";
import { untilDelivered } from "../support/product";
import { runBench } from "../support/run-bench";
import { benchBodyLabel } from "../support/signed-webhook";
import postgres from "postgres";

const { values: args } = parseArgs({ options: { backlog: { type: "string" }, max: { type: "string" }, connections: { type: "string" } } });
const BACKLOG = Number(args.backlog ?? process.env.BENCH_BACKLOG ?? 5000);
const MAX = Number(args.max ?? 100);
const CONNECTIONS = Number(args.connections ?? 32);

interface Figures { name: string; deliveries: number; cpu: CpuUse }

function report({ name, deliveries, cpu }: Figures) {
  const per = (seconds: number) => `${Math.round((seconds / deliveries) * 1e6)} µs`;
  console.log(`${name.padEnd(6)} ${deliveries} deliveries in ${cpu.seconds.toFixed(2)} s: ${Math.round(deliveries / cpu.seconds)}/s; CPU per delivery: ` +
    `PostgreSQL ${per(cpu.database)}, web ${per(cpu.processes.web ?? 0)}, worker ${per(cpu.processes.worker ?? 0)}, this client ${per(cpu.bench)}`);
}

/** Floods the endpoint until `destinationId` holds `count` stored deliveries (the worker does not send them: paused or pulled). */
async function fill(sql: postgres.Sql, url: string, secret: string, destinationId: string, count: number) {
  for (;;) {
    const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from deliveries where destination_id = ${destinationId}`;
    if (n >= count) return n;
    await flood(url, secret, Math.max(1, Math.ceil((count - n) / 400)), 16);
  }
}

runBench("bench_pull", async ({ database, destination, startProduct }) => {
  console.log(`bench:pull: backlog ${BACKLOG}, pulls of ${MAX}, body ${benchBodyLabel()}; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  const product = await startProduct();
  const sql = postgres(database.url, { max: 2, onnotice: () => {}, connection: { application_name: "bench" } });
  const org = await createOrganizationFixture("Bench pull");
  const base = product.web.url;
  const meter = () => new CpuMeter({ processes: { web: product.web.child.pid, worker: product.worker.pid }, database: { admin: database.admin, name: database.name } }).start();

  // Push: a paused endpoint's backlog, then resumed; done when nothing is left open.
  const pushed = await createEndpoint({ ctx: org.ctx, input: { name: "Push", provider: "standard-webhooks", destinationUrl: destination.url, paused: true } });
  const pushCount = await fill(sql, `${base}/in/${pushed.id}`, pushed.secret!, defaultDestinationId(pushed.id), BACKLOG);
  await untilDelivered(sql);
  let cpu = await meter();
  await updateEndpoint({ ctx: org.ctx, input: { id: pushed.id, changes: { paused: false } } });
  if (!(await untilDelivered(sql, 600_000))) throw new Error("push did not drain");
  report({ name: "push", deliveries: pushCount, cpu: await cpu.stop() });

  // Pull: an endpoint whose only live destination is a pull one (its default is paused).
  const pulledEndpoint = await createEndpoint({ ctx: org.ctx, input: { name: "Pull", provider: "standard-webhooks", destinationUrl: destination.url, paused: true } });
  const lane = await createDestination({ ctx: org.ctx, input: { endpointId: pulledEndpoint.id, body: { name: "consumer", type: "pull" } } });
  const pullCount = await fill(sql, `${base}/in/${pulledEndpoint.id}`, pulledEndpoint.secret!, lane.id, BACKLOG);
  const headers = { authorization: `Bearer ${org.apiKey}`, "content-type": "application/json" };
  const route = `${base}/api/v1/endpoints/${pulledEndpoint.id}/destinations/${lane.id}`;
  cpu = await meter();
  let handed = 0;
  for (;;) {
    const answer = await fetch(`${route}/pull`, { method: "POST", headers, body: JSON.stringify({ max: MAX, leaseSeconds: 60 }) });
    const { data } = (await answer.json()) as { data: { leaseId: string; deliveryId: string; body: string; headers: Record<string, string> }[] };
    if (data.length === 0) break;
    await Promise.all(data.map((d) => fetch(destination.url, { method: "POST", headers: { "content-type": "application/json", "x-inbox-delivery-id": d.deliveryId }, body: d.body }).then((r) => r.arrayBuffer())));
    const acked = await fetch(`${route}/ack`, { method: "POST", headers, body: JSON.stringify({ leaseIds: data.map((d) => d.leaseId) }) });
    if (!acked.ok) throw new Error(`ack answered ${acked.status}`);
    handed += data.length;
    if (handed % 1000 < MAX) await cpu.sample();
  }
  const pulledCpu = await cpu.stop();
  report({ name: "pull", deliveries: handed, cpu: pulledCpu });
  if (handed !== pullCount) console.log(`(pulled ${handed} of ${pullCount} stored)`);
  await sql.end();
});
