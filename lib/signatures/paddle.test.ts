import { createHmac } from "node:crypto";
import { Paddle } from "@paddle/paddle-node-sdk";
import { describe, expect, it } from "vitest";
import { paddle } from "@/lib/signatures/paddle";
import { expectRejected, request } from "@/test/signature-requests";

const KEY = "pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_6h3qd3uFSi9YCD3OLYAShQI90XTI5vEI";
const PREVIOUS = "pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_previousPreviousPrevious";
const BODY = JSON.stringify({ event_id: "evt_01hv8x2acma2gz9bbqbt2b9k4h", event_type: "transaction.completed", occurred_at: "2026-03-02T12:00:00Z", data: { id: "txn_1" } });

// Our signer, from Paddle's "Verify webhook signatures" (https://developer.paddle.com/webhooks/signature-verification):
// `ts=<unix seconds>;h1=<hex HMAC-SHA256 of "ts:body">`. The SDK checks ts against the real clock, so it is now.
function signed(opts: { keys?: string[]; body?: string; at?: number } = {}) {
  const { keys = [KEY], body = BODY, at = Math.floor(Date.now() / 1000) } = opts;
  const h1 = keys.map((key) => `h1=${createHmac("sha256", key).update(`${at}:${body}`).digest("hex")}`);
  const headers = { "paddle-signature": [`ts=${at}`, ...h1].join(";") };
  return request({ body: Buffer.from(body), headers, secrets: [KEY], now: new Date(at * 1000) });
}

const sdkAccepts = (input: ReturnType<typeof signed>, key = KEY) => new Paddle("pdl_sdbx_apikey_test").webhooks.isSignatureValid(input.body.toString(), key, input.headers["paddle-signature"]!);

describe("paddle", () => {
  it("accepts what @paddle/paddle-node-sdk accepts, and reads event_id and event_type", async () => {
    const input = signed();
    expect(await sdkAccepts(input)).toBe(true);
    expect(paddle.verify(input)).toEqual({ externalId: "evt_01hv8x2acma2gz9bbqbt2b9k4h", eventType: "transaction.completed" });
  });

  it("rejects a tampered body, as the SDK does", async () => {
    const input = { ...signed(), body: Buffer.from(BODY.replace("txn_1", "txn_2")) };
    expect(await sdkAccepts(input)).toBe(false);
    expectRejected(paddle, input, "invalid_signature");
  });

  it("accepts either h1 while Paddle signs with two secrets during a rotation", () => {
    expect(paddle.verify({ ...signed({ keys: [PREVIOUS, KEY] }) }).eventType).toBe("transaction.completed");
  });

  it("accepts the previous key during rotation and rejects a wrong one", () => {
    expect(paddle.verify({ ...signed({ keys: [PREVIOUS] }), secrets: [KEY, PREVIOUS] }).eventType).toBe("transaction.completed");
    expectRejected(paddle, { ...signed(), secrets: [PREVIOUS] }, "invalid_signature");
  });

  it("rejects a stale timestamp", () => {
    const input = signed({ at: 1_772_452_800 });
    expectRejected(paddle, { ...input, now: new Date((1_772_452_800 + 301) * 1000) }, "timestamp_out_of_tolerance");
  });

  it("rejects a header without ts or h1, and a missing header", () => {
    const input = signed();
    expectRejected(paddle, { ...input, headers: { "paddle-signature": input.headers["paddle-signature"]!.replace(/ts=\d+;/, "") } }, "invalid_signature");
    expectRejected(paddle, { ...input, headers: { "paddle-signature": input.headers["paddle-signature"]!.replace(/;h1=.*/, "") } }, "invalid_signature");
    expectRejected(paddle, { ...input, headers: {} }, "missing_signature");
  });
});
