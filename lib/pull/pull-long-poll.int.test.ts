// #44: a pull's waitSeconds over real HTTP: a long poll answers as soon as a delivery arrives during its wait (told
// by NOTIFY from ingest's commit in another process), holds no pooled connection while it waits (more waiting polls
// than the pool has connections, and other calls still answer), and one organization's waiting polls, at its cap,
// do not keep another organization's long poll from its delivery.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { startNextServer, type RunningServer } from "@/test/next-server";
import { pullLane, send, type Pulled, type PullLane } from "@/test/pull-api";

const database = useTestDatabase();
let server: RunningServer;
const POOL = 2;
const WAITS_PER_ORGANIZATION = 3;

beforeAll(async () => {
  server = await startNextServer({
    databaseUrl: database.url(),
    env: { DATABASE_POOL_SIZE: String(POOL), PULL_WAITS_PER_ORGANIZATION: String(WAITS_PER_ORGANIZATION), INBOX_ALLOW_PRIVATE_DESTINATIONS: "true" },
  });
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

interface Answer {
  status: number;
  data: Pulled[];
  /** Whether it had answered when asked (settledSoFar). */
  settled: () => boolean;
  done: Promise<void>;
}

/** A pull over HTTP, watched: `settled()` says whether its answer came yet. */
function startPull(lane: PullLane, body: Record<string, unknown>): Answer {
  let settled = false;
  const answer: Answer = { status: 0, data: [], settled: () => settled, done: Promise.resolve() };
  answer.done = fetch(`${server.url}/api/v1/endpoints/${lane.endpointId}/destinations/${lane.destinationId}/pull`, {
    method: "POST",
    headers: { authorization: `Bearer ${lane.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then(async (res) => {
    answer.status = res.status;
    answer.data = ((await res.json()) as { data: Pulled[] }).data;
    settled = true;
  });
  return answer;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a long poll", () => {
  it("answers with a delivery ingested while it waits, long before its waitSeconds", { timeout: 60_000 }, async () => {
    const org = await createOrganizationFixture("Laptop");
    const lane = await pullLane(org);
    const started = performance.now();
    const poll = startPull(lane, { waitSeconds: 25 });
    await pause(1_000); // it is waiting by now (or it takes the delivery at its first look: the same answer)
    expect(poll.settled()).toBe(false);
    const id = await send(lane, { type: "order.created", id: "evt_wake" });
    await poll.done;
    expect(poll.status).toBe(200);
    expect(poll.data.map((d) => d.deliveryId)).toEqual([id]);
    // Before its wait ran out: it was woken, not timed out.
    expect(performance.now() - started).toBeLessThan(25_000);
  });

  it("holds no connection while it waits, and one organization at its cap of waiting polls does not keep another's from its delivery", { timeout: 90_000 }, async () => {
    const a = await createOrganizationFixture("Idle");
    const b = await createOrganizationFixture("Busy");
    const idle = await pullLane(a);
    const busy = await pullLane(b);

    // More of A's polls than its cap and than the pool's connections.
    const polls = Array.from({ length: WAITS_PER_ORGANIZATION + 1 }, () => startPull(idle, { waitSeconds: 30, max: 1 }));
    await until(() => polls.some((p) => p.settled()));
    await pause(1_000);
    // Past the cap, one answered at once, with what was ready (nothing); the rest wait.
    const answered = polls.filter((p) => p.settled());
    expect(answered).toHaveLength(1);
    expect(answered[0]!.status).toBe(200);
    expect(answered[0]!.data).toEqual([]);
    const waiting = polls.filter((p) => !p.settled());
    expect(waiting).toHaveLength(WAITS_PER_ORGANIZATION);

    // B waits too (its own turn), and gets its delivery when it comes; A's still wait.
    const started = performance.now();
    const other = startPull(busy, { waitSeconds: 30 });
    await pause(1_000);
    const id = await send(busy, { type: "invoice.paid", id: "evt_b" });
    await other.done;
    expect(other.status).toBe(200);
    expect(other.data.map((d) => d.deliveryId)).toEqual([id]);
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(waiting.every((p) => !p.settled())).toBe(true);

    // And A's waiting polls each take one of A's deliveries as they come.
    const sent = [];
    for (let i = 0; i < WAITS_PER_ORGANIZATION; i++) sent.push(await send(idle, { type: "tick", i }));
    await Promise.all(waiting.map((p) => p.done));
    expect(waiting.flatMap((p) => p.data.map((d) => d.deliveryId)).sort()).toEqual(sent.sort());
  });
});

async function until(probe: () => boolean): Promise<void> {
  while (!probe()) await pause(50);
}
