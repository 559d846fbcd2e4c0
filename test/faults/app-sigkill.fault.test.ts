// Fault (a): the whole app — start, web server, worker — SIGKILLed under load, then started again.
import { afterAll, describe, expect, it } from "vitest";
import { cleanUp, countByStatus, createApp, createEndpoint, createTenant, report, sleep, startDestination, startIngestLoad, startPrivatePostgres, waitDelivered } from "./harness";

afterAll(cleanUp);

describe("every webhook answered 200 is delivered after the whole app is SIGKILLed and started again", () => {
  it("delivers each 200's delivery id at the destination", async () => {
    const pg = await startPrivatePostgres();
    const app = await createApp(pg.url);
    await app.start();
    const tenant = await createTenant(app, pg.url);
    const destination = await startDestination();
    // A slow-ish destination, so deliveries are in flight and queued when the kill lands.
    const endpoint = await createEndpoint(tenant, { destinationUrl: destination.url(), maxAttempts: 50 });

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
