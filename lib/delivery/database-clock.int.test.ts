// Issue #13 race (d): every state change reads the database's clock, never the process's. The
// sweeps and claims compare next_attempt_at and received_at with now(); a worker or web process
// whose clock is off must not move a retry early or late, or leave fresh deliveries out of a bulk
// action. Here the test process's clock (Date only; timers run as usual) is an hour off.
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { claimDelivery } from "./engine/claim-delivery";
import { finishAttempt } from "./engine/finish-attempt";
import { deliverySettings } from "./engine/settings";
import { replayDeliveries } from "./replay-deliveries";

useTestDatabase();

const HOUR_MS = 3_600_000;
let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  org = await createOrganizationFixture();
});
afterEach(() => {
  vi.useRealTimers();
});

/** The process's Date runs `offsetMs` away from the real time; timers are left alone. */
function skewClock(offsetMs: number) {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + offsetMs, shouldAdvanceTime: true });
}

describe("a retry scheduled by a worker whose clock is an hour fast", () => {
  it("is due at the database's now() plus the backoff, and so is its job", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { retryBaseSeconds: 60, maxAttempts: 5 });
    const { id } = await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false });
    const claim = await claimDelivery({ deliveryId: id, destinationId: defaultDestinationId(endpoint.id), jobId: "7070", trigger: "auto", settings: deliverySettings() });
    if (claim.verdict !== "claimed") throw new Error(claim.verdict);

    skewClock(HOUR_MS);
    const settlement = await finishAttempt({
      attempt: claim.attempt,
      jobId: "7070",
      send: { result: { kind: "response", statusCode: 503, retryAfterMs: null }, responseBody: "busy", durationMs: 2 },
      outcome: { kind: "retry", reason: "HTTP 503", retryAfterMs: null },
      slot: "release",
      settings: deliverySettings(),
    });
    vi.useRealTimers();
    expect(settlement.status).toBe("pending");

    // The first retry waits retryBaseSeconds ± 20 % jitter.
    const [row] = await getSql()<{ wait_s: number; job_wait_s: number }[]>`
      select extract(epoch from d.next_attempt_at - now())::float8 as wait_s,
        extract(epoch from j.run_at - now())::float8 as job_wait_s
      from deliveries d join graphile_worker._private_jobs j on j.key = 'deliver:' || d.id
      where d.id = ${id}`;
    expect(row!.wait_s).toBeGreaterThan(60 * 0.8 - 10);
    expect(row!.wait_s).toBeLessThanOrEqual(60 * 1.2);
    expect(row!.job_wait_s).toBeCloseTo(row!.wait_s, 3);
  });
});

describe("a bulk replay asked of a web process whose clock is an hour slow", () => {
  it("takes the deliveries received in that hour", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, status: "dead", enqueue: false });
    skewClock(-HOUR_MS);
    const replayed = await replayDeliveries({ ctx: org.ctx, input: { filter: { endpointId: endpoint.id } } });
    vi.useRealTimers();
    expect(replayed.count).toBe(1);
  });
});
