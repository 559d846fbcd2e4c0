// Fault (b): PostgreSQL stopped under load, then started again, the app left running.
import { afterAll, describe, expect, it } from "vitest";
import { cleanUp, countByStatus, report, sleep, startIngestLoad, startStage, until, waitDelivered } from "./harness";

afterAll(cleanUp);

describe("ingest answers 503 with Retry-After while PostgreSQL is down, and resumes without a restart", () => {
  it("503 within 10 s, never 200 while down; after PostgreSQL is back, 200 again and every 200 delivered", async () => {
    const { pg, app, destination, endpoint } = await startStage({ endpoint: { maxAttempts: 50 } });

    const load = startIngestLoad(app, endpoint, { connections: 3, pauseMs: 20 });
    await sleep(4_000);
    const stopAt = Date.now();
    await pg.stop();
    const downAt = Date.now();
    const first503 = await until("a 503 with Retry-After", () => load.results.find((r) => r.sentAt >= downAt && r.status === 503 && r.retryAfter), 30_000, 50);
    await sleep(20_000);
    const upAt = Date.now();
    await pg.start();
    const pgStartTookMs = Date.now() - upAt;
    const whileDown = load.results.filter((r) => r.sentAt >= downAt && r.at <= upAt);
    const first200 = await until("a 200 again", () => load.results.find((r) => r.sentAt >= upAt && r.status === 200), 60_000, 50);
    const healthy = await until("health ok again", async () => {
      const h = await app.health();
      return h.status === 200 && (h.body as { worker: string }).worker === "ok" ? Date.now() : undefined;
    }, 90_000);
    await sleep(3_000);
    await load.stop();

    const accepted = load.accepted();
    const missing = await waitDelivered(destination, accepted, 120_000);
    const allDelivered = Date.now();
    report("PostgreSQL stopped 20 s under load", {
      pgStopTookMs: downAt - stopAt,
      first503AfterStopMs: first503.at - stopAt,
      retryAfter: first503.retryAfter,
      answersWhileDown: countByStatus(whileDown),
      pgStartTookMs,
      first200AfterStartMs: first200.at - upAt,
      healthOkAfterStartMs: healthy - upAt,
      allDeliveredAfterStartMs: allDelivered - upAt,
      ingestAnswers: countByStatus(load.results),
      accepted: accepted.size,
      missing: missing.length,
      startProcessAlive: app.process().exitCode === null,
      childRestarts: app.output().match(/exited unexpectedly[^\n]*/g) ?? [],
    });
    expect(first503.at - stopAt).toBeLessThan(10_000);
    expect(whileDown.filter((r) => r.status === 200)).toEqual([]);
    expect(whileDown.length).toBeGreaterThan(0);
    // Every refusal while down is a retry-safe 503 with Retry-After (none hung past the client's 20 s).
    expect(whileDown.filter((r) => r.status !== 503 || !r.retryAfter).map((r) => r.status)).toEqual([]);
    expect(missing, app.output().slice(-3000)).toEqual([]);
    expect(app.process().exitCode).toBeNull(); // never restarted
  });
});
