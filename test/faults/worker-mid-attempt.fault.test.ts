// Fault (d): the worker SIGKILLed while its attempt is in flight (the destination holds the request).
import { afterAll, describe, expect, it } from "vitest";
import { cleanUp, report, sendSigned, startStage, until } from "./harness";

afterAll(cleanUp);

describe("a delivery whose worker was killed mid-attempt is delivered again within 2 minutes", () => {
  it("records the lost attempt as interrupted and delivers it under the same id", async () => {
    const { app, tenant, destination, endpoint } = await startStage({ endpoint: { maxAttempts: 10, timeoutMs: 30_000 } });

    destination.setMode("hang");
    const sent = await sendSigned(app, endpoint, JSON.stringify({ type: "held" }));
    expect(sent.status).toBe(200);
    const id = sent.deliveryId!;
    await until("the attempt to reach the destination", () => destination.requests.some((r) => r.deliveryId === id), 30_000, 50);
    const [workerPid] = app.childPids(/jobs\/worker\.ts/);
    expect(workerPid).toBeGreaterThan(0);
    const killedAt = Date.now();
    process.kill(workerPid, "SIGKILL");
    destination.setMode("ok"); // drops the held request; the next attempt is answered 200

    const deliveredAfterMs = await until("delivered again", () => (destination.received.has(id) ? Date.now() - killedAt : undefined), 120_000, 100);
    const delivery = await until("recorded delivered", async () => {
      const answer = await tenant.api("GET", `/deliveries/${id}`);
      return answer.body.status === "delivered" ? answer.body : undefined;
    }, 30_000);
    report("worker SIGKILL mid-attempt", {
      deliveredAgainAfterMs: deliveredAfterMs,
      attempts: delivery.attempts.map((a: { number: number; statusCode: number | null; error: string | null }) => [a.number, a.statusCode, a.error?.slice(0, 30) ?? null]),
    });
    expect(deliveredAfterMs).toBeLessThan(120_000);
    expect(delivery.attempts.map((a: { statusCode: number | null }) => a.statusCode)).toEqual([null, 200]);
    expect(delivery.attempts[0].error).toMatch(/^interrupted/);
    expect(destination.requests.filter((r) => r.deliveryId === id).map((r) => r.attempt)).toEqual(["1", "2"]);
  });
});
