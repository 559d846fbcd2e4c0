// The deliver task against real local destinations, run by a real graphile-worker in this process:
// what a destination receives, retries and their schedule, dead ends, replay and bury.
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture, until } from "@/test/delivery-fixtures";
import { useDeliveryWorkerSuite } from "@/test/delivery-worker-suite";
import { buryDelivery } from "../bury-delivery";
import { replayDelivery } from "../replay-delivery";

useTestDatabase();
const suite = useDeliveryWorkerSuite();
const { destination, read, settled, jobsFor } = suite;

/** Why the row is dead, as stored by the statement that made it so (API.md `deadReason`). */
async function storedDeadReason(id: string) {
  const [row] = await getSql()<{ dead_reason: string | null }[]>`select dead_reason from deliveries where id = ${id}`;
  return row!.dead_reason;
}

describe("hands the destination the byte-exact body and original headers, plus ours", () => {
  it("POSTs the stored bytes with the provider's headers, x-inbox-delivery-id and x-inbox-attempt", async () => {
    const dest = await destination();
    const endpoint = await createEndpointFixture(suite.org.ctx, `${dest.url}?tenant=acme`);
    const body = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x00, 0x22, 0x7d]); // not UTF-8, with a NUL
    const headers = { "content-type": "application/json", "stripe-signature": "t=1,v1=abc", host: "inbox.example", "content-length": "11", connection: "close" };
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id, body, headers });
    const delivery = await settled(id, "delivered");
    const [request] = dest.requests;
    expect(request!.method).toBe("POST");
    expect(request!.url).toBe("/hook?tenant=acme");
    expect(request!.body.equals(body)).toBe(true);
    expect(request!.headers["stripe-signature"]).toBe("t=1,v1=abc");
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers.host).toBe(`127.0.0.1:${dest.port}`);
    expect(request!.headers["x-inbox-delivery-id"]).toBe(id);
    expect(request!.headers["x-inbox-attempt"]).toBe("1");
    expect(delivery).toMatchObject({ attemptCount: 1, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
    expect(delivery.deliveredAt).not.toBeNull();
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ number: 1, trigger: "auto", statusCode: 200, responseBody: "ok", error: null, durationMs: expect.any(Number) }),
    ]);
  });

  it("re-signs with Standard Webhooks when the endpoint has an outbound secret", async () => {
    const secret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
    const dest = await destination();
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { outboundSecret: secret });
    const { id, body } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id, headers: { "content-type": "application/json", "webhook-signature": "v1,stale" } });
    await settled(id, "delivered");
    const [request] = dest.requests;
    const verified = new Webhook(secret).verify(request!.body.toString(), request!.headers as Record<string, string>);
    expect(verified).toEqual(JSON.parse(body.toString()));
    expect(request!.headers["webhook-id"]).toBe(id);
  });

  it("keeps only the first 4 KiB of a destination's answer", async () => {
    const dest = await destination((_req, res) => void res.end("x".repeat(10_000)));
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url);
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    const delivery = await settled(id, "delivered");
    expect(delivery.attempts[0]!.responseBody).toHaveLength(4096);
  });
});

describe("retries 503 with growing gaps and delivers on the third attempt", () => {
  it("records both failures, schedules each retry, and delivers on attempt 3", async () => {
    const dest = await destination((_req, res, index) => {
      res.statusCode = index < 2 ? 503 : 200;
      res.end(index < 2 ? "busy" : "thanks");
    });
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { retryBaseSeconds: 1 });
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });

    const waiting = await until("first retry scheduled", async () => {
      const delivery = await read(id);
      return delivery.attemptCount === 1 && delivery.status === "pending" ? delivery : null;
    });
    expect(waiting).toMatchObject({ lastStatusCode: 503, lastError: "HTTP 503 Service Unavailable" });
    const firstWait = Date.parse(waiting.nextAttemptAt!) - Date.parse(waiting.attempts[0]!.startedAt);
    expect(firstWait).toBeGreaterThanOrEqual(800);
    expect(firstWait).toBeLessThan(1_200 + 1_000);

    const delivery = await settled(id, "delivered");
    expect(delivery.attemptCount).toBe(3);
    expect(delivery.attempts.map((a) => [a.number, a.trigger, a.statusCode, a.error])).toEqual([
      [1, "auto", 503, "HTTP 503 Service Unavailable"],
      [2, "auto", 503, "HTTP 503 Service Unavailable"],
      [3, "auto", 200, null],
    ]);
    expect(dest.requests.map((r) => r.headers["x-inbox-attempt"])).toEqual(["1", "2", "3"]);
    expect(new Set(dest.requests.map((r) => r.headers["x-inbox-delivery-id"]))).toEqual(new Set([id]));
    const [a1, a2, a3] = delivery.attempts.map((a) => Date.parse(a.startedAt));
    // retryBaseSeconds × 4^(n−1) ± 20 %: about 1 s, then about 4 s.
    expect(a2! - a1!).toBeGreaterThanOrEqual(800);
    expect(a3! - a2!).toBeGreaterThanOrEqual(3_200);
    expect(a3! - a2!).toBeGreaterThan(a2! - a1!);
  });
});

describe("buries a 4xx at once, and a replay after the fix delivers it", () => {
  it("is dead after one 400, then delivered by a replay attempt", async () => {
    let fixed = false;
    const dest = await destination((_req, res) => {
      res.statusCode = fixed ? 200 : 400;
      res.end(fixed ? "ok" : '{"error":"unknown field"}');
    });
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url);
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    const dead = await settled(id, "dead");
    expect(dead.attemptCount).toBe(1);
    expect(dead.lastStatusCode).toBe(400);
    expect(dead.lastError).toMatch(/^HTTP 400 Bad Request/);
    expect(dead.deadReason).toBe("rejected");
    expect(await storedDeadReason(id)).toBe("rejected");
    expect(dead.attempts[0]!.responseBody).toBe('{"error":"unknown field"}');
    // The job ends when its task returns, just after the task's statement made the delivery dead.
    await until("its job to end", async () => (await jobsFor(id)) === 0 || null);

    fixed = true;
    expect(await replayDelivery({ ctx: suite.org.ctx, input: { id } })).toEqual({ id, status: "pending" });
    const delivered = await settled(id, "delivered");
    expect(delivered.attempts.map((a) => [a.number, a.trigger, a.statusCode])).toEqual([
      [1, "auto", 400],
      [2, "replay", 200],
    ]);
    expect(dest.requests[1]!.headers["x-inbox-attempt"]).toBe("2");
    expect(delivered.deadReason).toBeNull();
    expect(await storedDeadReason(id)).toBeNull();
  });

  it("buries 410 Gone at once too", async () => {
    const dest = await destination((_req, res) => {
      res.statusCode = 410;
      res.end();
    });
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url);
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    const dead = await settled(id, "dead");
    expect(dead.lastError).toMatch(/^HTTP 410 Gone/);
    expect(dead.deadReason).toBe("rejected");
  });
});

describe("gives up after maxAttempts", () => {
  it("is dead after maxAttempts failed attempts, with the reason, and a replay starts a new series", async () => {
    const dest = await destination((_req, res) => {
      res.statusCode = 500;
      res.end("boom");
    });
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { maxAttempts: 2, retryBaseSeconds: 1 });
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    const dead = await settled(id, "dead");
    expect(dead.attemptCount).toBe(2);
    expect(dead.nextAttemptAt).toBeNull();
    expect(dead.lastError).toBe("gave up after 2 attempts (maxAttempts 2); last: HTTP 500 Internal Server Error");
    expect(dead.deadReason).toBe("exhausted");
    expect(await storedDeadReason(id)).toBe("exhausted");
    expect(dest.requests).toHaveLength(2);

    await replayDelivery({ ctx: suite.org.ctx, input: { id } });
    const again = await settled(id, "dead");
    expect(again.attempts.map((a) => a.trigger)).toEqual(["auto", "auto", "replay", "auto"]);
  });
});

describe("honours the destination's Retry-After", () => {
  it("waits the seconds a 429 asks for, beyond the schedule", async () => {
    const dest = await destination((_req, res, index) => {
      if (index === 0) {
        res.writeHead(429, { "retry-after": "3" });
        return void res.end();
      }
      res.end("ok");
    });
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { retryBaseSeconds: 1 });
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    const waiting = await until("retry scheduled", async () => {
      const delivery = await read(id);
      return delivery.attemptCount === 1 && delivery.status === "pending" ? delivery : null;
    });
    expect(Date.parse(waiting.nextAttemptAt!) - Date.parse(waiting.attempts[0]!.startedAt)).toBeGreaterThanOrEqual(3_000);
    await settled(id, "delivered");
    expect(dest.requests[1]!.receivedAt - dest.requests[0]!.receivedAt).toBeGreaterThanOrEqual(2_900);
  });

  it("reads an HTTP-date too", async () => {
    const dest = await destination((_req, res) => {
      res.writeHead(503, { "retry-after": new Date(Date.now() + 600_000).toUTCString() });
      res.end();
    });
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { retryBaseSeconds: 1 });
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    const waiting = await until("retry scheduled", async () => {
      const delivery = await read(id);
      return delivery.attemptCount === 1 && delivery.status === "pending" ? delivery : null;
    });
    expect(Date.parse(waiting.nextAttemptAt!) - Date.now()).toBeGreaterThan(500_000);
  });
});

describe("bury stops scheduled retries", () => {
  it("removes the scheduled job, and no attempt follows", async () => {
    const dest = await destination((_req, res) => {
      res.statusCode = 503;
      res.end();
    });
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { retryBaseSeconds: 1 });
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    // The first attempt's job is deleted once graphile-worker records its completion, which may come a
    // moment after the attempt's own commit: then the retry's job is the only one.
    const waiting = await until("retry scheduled", async () => {
      const delivery = await read(id);
      return delivery.attemptCount === 1 && delivery.status === "pending" && (await jobsFor(id)) === 1 ? delivery : null;
    });
    expect(await buryDelivery({ ctx: suite.org.ctx, input: { id } })).toEqual({ id, status: "dead" });
    expect(await jobsFor(id)).toBe(0);
    const buried = await read(id);
    expect(buried).toMatchObject({ status: "dead", deadReason: "buried", nextAttemptAt: null, lastError: "buried on request; last error: HTTP 503 Service Unavailable" });
    expect(await storedDeadReason(id)).toBe("buried");
    // Past the time the retry was due, nothing more reached the destination.
    await until("the retry's time to pass", () => Date.now() > Date.parse(waiting.nextAttemptAt!) + 1_500);
    expect(dest.requests).toHaveLength(1);
    expect((await read(id)).status).toBe("dead");
  });
});

describe("retries a timeout and a refused connection", () => {
  it("records a timeout as a failed attempt and schedules a retry", async () => {
    const dest = await destination(() => {}); // never answers
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { timeoutMs: 300, retryBaseSeconds: 60 });
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    const waiting = await until("retry scheduled", async () => {
      const delivery = await read(id);
      return delivery.attemptCount === 1 && delivery.status === "pending" ? delivery : null;
    });
    expect(waiting.lastError).toBe("no answer within 300 ms (timeout)");
    expect(waiting.lastStatusCode).toBeNull();
    expect(waiting.attempts[0]).toMatchObject({ statusCode: null, error: "no answer within 300 ms (timeout)" });
  });

  it("records a refused connection and schedules a retry", async () => {
    const dest = await destination();
    await dest.close();
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { retryBaseSeconds: 60 });
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    const waiting = await until("retry scheduled", async () => {
      const delivery = await read(id);
      return delivery.attemptCount === 1 && delivery.status === "pending" ? delivery : null;
    });
    expect(waiting.lastError).toMatch(/connection failed \(ECONNREFUSED/);
  });
});
