// The real worker process (jobs/worker.ts) against a real destination: a worker SIGKILLed in the
// middle of an attempt strands nothing, and SIGTERM lets the attempt in flight finish.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture, startDestination, until, type Destination } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { getDelivery } from "../get-delivery";

const database = useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

const children = new Set<ChildProcess>();
const destinations: Destination[] = [];
let org: Awaited<ReturnType<typeof createOrganizationFixture>>;

beforeAll(async () => {
  org = await createOrganizationFixture();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await Promise.all(destinations.map((d) => d.close()));
});

function startWorker(): ChildProcess & { output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ["--import", "tsx", "jobs/worker.ts"], {
    env: {
      ...process.env,
      DATABASE_URL: database.url(),
      INBOX_ALLOW_PRIVATE_DESTINATIONS: "true",
      WORKER_CONCURRENCY: "4",
      // Heartbeats and dead-worker sweeps shortened from 5 s / 30 s / 15 s, so the test takes seconds.
      WORKER_HEARTBEAT_INTERVAL_MS: "200",
      WORKER_STALE_AFTER_MS: "1500",
      WORKER_RELEASE_INTERVAL_MS: "300",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  children.add(child);
  return Object.assign(child, { output: () => output, exited });
}

describe("a worker killed with SIGKILL mid-attempt strands nothing", () => {
  it("has the delivery delivered by a new worker process, the lost attempt marked interrupted", async () => {
    // The first request hangs (the attempt is in flight when its worker dies); later ones succeed.
    const dest = await startDestination((_req, res, index) => {
      if (index > 0) res.end("ok");
    });
    destinations.push(dest);
    const endpoint = await createEndpointFixture(org.ctx, dest.url, { timeoutMs: 30_000 });
    const { id } = await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id });

    const first = startWorker();
    await until("the slow attempt in flight", () => dest.requests.length === 1, 30_000);
    expect((await getDelivery({ ctx: org.ctx, input: { id } })).status).toBe("delivering");
    first.kill("SIGKILL");
    expect(await first.exited).toBeNull();

    const second = startWorker();
    const delivered = await until("delivered by the new worker", async () => {
      const delivery = await getDelivery({ ctx: org.ctx, input: { id } });
      return delivery.status === "delivered" ? delivery : null;
    }, 120_000);
    expect(delivered.attempts.map((a) => [a.number, a.statusCode, a.error])).toEqual([
      [1, null, "interrupted: the worker stopped during this attempt, so its outcome is unknown"],
      [2, 200, null],
    ]);
    // At-least-once: the destination saw the delivery twice, under one id it can dedupe on.
    expect(dest.requests.map((r) => [r.headers["x-inbox-delivery-id"], r.headers["x-inbox-attempt"]])).toEqual([
      [id, "1"],
      [id, "2"],
    ]);
    expect(second.output()).toContain(`[deliver] ${id} the attempt before #2 was interrupted`);
    second.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 150_000);
});

describe("SIGTERM lets the attempt in flight finish before the worker exits", () => {
  it("records the attempt's outcome, then exits 0", async () => {
    let answer: (() => void) | undefined;
    const dest = await startDestination((_req, res) => {
      answer = () => res.end("ok");
    });
    destinations.push(dest);
    const endpoint = await createEndpointFixture(org.ctx, dest.url);
    const { id } = await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id });

    const worker = startWorker();
    await until("the attempt in flight", () => dest.requests.length === 1, 30_000);
    worker.kill("SIGTERM");
    await until("the worker to start draining", () => worker.output().includes("SIGTERM"), 10_000);
    expect(worker.exitCode).toBeNull();
    answer!();
    expect(await worker.exited).toBe(0);
    const delivery = await getDelivery({ ctx: org.ctx, input: { id } });
    expect(delivery.status).toBe("delivered");
    expect(delivery.attempts).toHaveLength(1);
    const [jobs] = await getSql()`select count(*)::int as n from graphile_worker._private_jobs where payload->>'deliveryId' = ${id}`;
    expect(jobs!.n).toBe(0);
  }, 60_000);
});
