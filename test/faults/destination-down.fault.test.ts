// Fault (c): the destination down for two minutes, then up. DELIVERY_RETRY_MAX_DELAY_SECONDS=20
// caps the backoff (1, 4, 16, 20, 20 … s) so the first attempt after the outage comes within ~20 s
// instead of ~341 s with the hour-long default cap.
import { afterAll, describe, expect, it } from "vitest";
import { cleanUp, countByStatus, report, sleep, startIngestLoad, startStage, waitDelivered } from "./harness";

afterAll(cleanUp);

const OUTAGE_MS = 120_000;

describe("every delivery arrives after the destination was down for two minutes", () => {
  it("delivers each 200 once the destination is back", async () => {
    const { app, destination, endpoint } = await startStage({ appEnv: { DELIVERY_RETRY_MAX_DELAY_SECONDS: "20" }, endpoint: { maxAttempts: 50, retryBaseSeconds: 1, timeoutMs: 5_000 } });

    await destination.down();
    const downAt = Date.now();
    // A trickle during the first half of the outage: deliveries at every stage of the backoff.
    const load = startIngestLoad(app, endpoint, { connections: 1, pauseMs: 500 });
    await sleep(OUTAGE_MS / 2);
    await load.stop();
    await sleep(downAt + OUTAGE_MS - Date.now());
    const deliveredWhileDown = destination.received.size;
    await destination.up();
    const upAt = Date.now();

    const accepted = load.accepted();
    const missing = await waitDelivered(destination, accepted, 90_000);
    const arrivals = destination.requests.filter((r) => r.at >= upAt);
    report("destination down 120 s", {
      ingestAnswers: countByStatus(load.results),
      accepted: accepted.size,
      lastArrivalAfterUpMs: Math.max(...arrivals.map((r) => r.at)) - upAt,
      maxAttemptNumber: Math.max(...arrivals.map((r) => Number(r.attempt))),
      missing: missing.length,
    });
    expect(deliveredWhileDown).toBe(0);
    expect(accepted.size).toBeGreaterThan(20);
    expect(missing, app.output().slice(-3000)).toEqual([]);
  });
});
