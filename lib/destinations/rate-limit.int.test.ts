// #43: a destination's rate limit holds across any number of workers: with {perSecond: 5, burst: 1}, no two
// attempts start closer than 200 ms, whichever of two worker processes makes them; what waits is parked (no job
// spinning), and another destination of the same endpoint goes at its own pace meanwhile.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import * as destinationsRoute from "@/app/api/v1/endpoints/[id]/destinations/route";
import * as destinationRoute from "@/app/api/v1/endpoints/[id]/destinations/[destinationId]/route";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { startDestination, until, type Destination } from "@/test/delivery-fixtures";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { postIngest, standardWebhooksHeaders } from "@/test/ingest-requests";

const database = useTestDatabase();
const children = new Set<ChildProcess>();
const servers: Destination[] = [];
// Slow enough that the backlog still waits once every first claim has parked it, even on a busy machine.
const PER_SECOND = 2;
const COUNT = 12;

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await Promise.all(servers.map((s) => s.close()));
});

function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "jobs/worker.ts"], {
    env: { ...process.env, DATABASE_URL: database.url(), WORKER_CONCURRENCY: "10", DELIVERY_LOG: "problems", INBOX_ALLOW_PRIVATE_DESTINATIONS: "true" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.add(child);
  return child;
}

describe("a destination's rate limit", () => {
  it("spaces its starts at 1/perSecond beyond the burst across two worker processes, while another destination goes at once", { timeout: 180_000 }, async () => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    const org = await createOrganizationFixture("Paced");
    const server = await startDestination();
    servers.push(server);
    const endpoint = await createEndpoint({ ctx: org.ctx, input: { name: "Orders", provider: "standard-webhooks", destinationUrl: `${server.url}/slow` } });
    const [lane] = await getSql()`select id from destinations where endpoint_id = ${endpoint.id} and is_default`;
    const limited = await callRoute(destinationRoute.PATCH, {
      method: "PATCH", apiKey: org.apiKey, params: { id: endpoint.id, destinationId: lane!.id }, body: { rateLimit: { perSecond: PER_SECOND } },
    });
    expect(limited.status).toBe(200);
    expect(limited.body.rateLimit).toEqual({ perSecond: PER_SECOND, burst: 1 });
    const fast = await callRoute(destinationsRoute.POST, { method: "POST", apiKey: org.apiKey, params: { id: endpoint.id }, body: { name: "Fast", url: `${server.url}/fast` } });
    expect(fast.status).toBe(201);

    const ids: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const body = JSON.stringify({ type: "order.created", id: `evt_${i}`, customer: `cus_${1000 + i}`, email: `buyer${i}@example.com` });
      const answer = await postIngest(endpoint.id, body, standardWebhooksHeaders(endpoint.secret!, body));
      expect(answer.status).toBe(200);
      ids.push(answer.body.id);
    }
    startWorkerProcess();
    startWorkerProcess();

    // Includes two worker processes' start (tsx), which passed 30 s in a loaded CI run.
    await until("the fast destination got every one", () => server.requests.filter((r) => r.url.endsWith("/fast")).length === COUNT, 60_000);
    const slowSoFar = server.requests.filter((r) => r.url.endsWith("/slow")).length;
    // The fast one did not wait for the limited one's pace.
    expect(slowSoFar).toBeLessThan(COUNT);
    // What waits for a token is parked: no job runs for it until its token is due. Once each delivery's first job
    // has claimed (and parked) it, only the one or two just woken for the token coming (a wake, and the look after
    // an attempt, each up to the bucket's one) are not, while a backlog still waits.
    const waiting = async () => (await getSql()<{ parked: number; pending: number }[]>`
      select count(*) filter (where parked_at is not null)::int as parked, count(*)::int as pending
      from deliveries where destination_id = ${lane!.id} and status = 'pending'`)[0]!;
    await until("the waiting backlog parked (fails by timing out)", async () => {
      const now = await waiting();
      return now.pending > 2 && now.pending - now.parked <= 2;
    }, 30_000);
    await until("the limited destination got every one", () => server.requests.filter((r) => r.url.endsWith("/slow")).length === COUNT, 60_000);

    // The destination has the last request before its attempt's row is written: wait for the rows too.
    const starts = await until("every attempt recorded", async () => {
      const rows = (await getSql()<{ at: Date }[]>`
        select a.started_at as at from attempts a join deliveries d on d.id = a.delivery_id
        where d.destination_id = ${lane!.id} order by a.started_at`).map((r) => r.at.getTime());
      return rows.length >= COUNT && rows;
    }, 30_000);
    expect(starts).toHaveLength(COUNT);
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
    console.log(`[rate-limit test] gaps between starts (ms): ${gaps.join(", ")}`); // the figure, for the log
    // A token every 200 ms, taken in the claim's transaction (its start); the attempt's start is stamped in the same
    // statement a few milliseconds on, hence the allowance.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1000 / PER_SECOND - 25);
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(((COUNT - 1) * 1000) / PER_SECOND - 25 * (COUNT - 1));
  });
});
