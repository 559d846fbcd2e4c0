// Fault (a): the whole app — start, web server, worker — SIGKILLed under load, then started again.
import { afterAll, describe, expect, it } from "vitest";
import { cleanUp, countByStatus, report, sleep, startIngestLoad, startStage, waitDelivered } from "./harness";

afterAll(cleanUp);

describe("every webhook answered 200 is delivered after the whole app is SIGKILLed and started again", () => {
  it("delivers each 200's delivery id at the destination", async () => {
    // A slow-ish destination, so deliveries are in flight and queued when the kill lands.
    const { app, destination, endpoint } = await startStage({ endpoint: { maxAttempts: 50 } });

    const load = startIngestLoad(app, endpoint, { connections: 4, pauseMs: 10 });
    await sleep(5_000);
    const killedAt = Date.now();
    await app.kill();
    const acceptedBeforeKill = load.results.filter((r) => r.status === 200 && r.at <= killedAt).length;
    const deliveredBeforeRestart = destination.received.size;
    await sleep(2_000);
    const restartAt = Date.now();
    await app.start();
    const startedInMs = Date.now() - restartAt;
    await sleep(5_000);
    await load.stop();

    const accepted = load.accepted();
    const waitFrom = Date.now();
    const missing = await waitDelivered(destination, accepted, 150_000);
    report("app SIGKILL (process group) and restart", {
      ingestAnswers: countByStatus(load.results),
      acceptedBeforeKill,
      accepted: accepted.size,
      deliveredBeforeRestart,
      restartToHealthyMs: startedInMs,
      allDeliveredAfterLoadStopMs: Date.now() - waitFrom,
      missing: missing.length,
      redelivered: [...destination.received.values()].filter((n) => n > 1).length,
    });
    expect(acceptedBeforeKill).toBeGreaterThan(0);
    expect(accepted.size).toBeGreaterThan(acceptedBeforeKill);
    expect(missing, app.output().slice(-3000)).toEqual([]);
  });
});
