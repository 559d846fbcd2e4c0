import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { stripe } from "@/lib/signatures/stripe";
import { expectRejected, NOW_SECONDS, request } from "@/test/signature-requests";

const sdk = new Stripe("sk_test_not_used_for_signing");
const SECRET = "whsec_current_stripe_test_secret";
const PREVIOUS = "whsec_previous_stripe_test_secret";
const BODY = JSON.stringify({ id: "evt_1NpZ", object: "event", type: "payment_intent.succeeded" });

function signed(opts: { secret?: string; body?: string; at?: number } = {}) {
  const { secret = SECRET, body = BODY, at = NOW_SECONDS } = opts;
  const header = sdk.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: at });
  return request({ body: Buffer.from(body), headers: { "stripe-signature": header }, secrets: [SECRET] });
}

/** The v1 signature Stripe's SDK makes for `secret`. */
function v1(secret: string, body = BODY, at = NOW_SECONDS): string {
  return sdk.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: at }).split(",v1=")[1];
}

describe("stripe", () => {
  it("accepts a request signed by the Stripe SDK and reads the event's id and type", () => {
    expect(stripe.verify(signed())).toEqual({ externalId: "evt_1NpZ", eventType: "payment_intent.succeeded" });
  });

  it("accepts the previous secret during rotation", () => {
    expect(stripe.verify({ ...signed({ secret: PREVIOUS }), secrets: [SECRET, PREVIOUS] }).externalId).toBe("evt_1NpZ");
  });

  it("accepts a header carrying several v1 signatures when one matches (Stripe rolling a secret)", () => {
    const header = `t=${NOW_SECONDS},v1=${v1(PREVIOUS)},v1=${v1(SECRET)},v0=${"0".repeat(64)}`;
    expect(stripe.verify(request({ body: Buffer.from(BODY), headers: { "stripe-signature": header }, secrets: [SECRET] })).eventType).toBe(
      "payment_intent.succeeded",
    );
  });

  it("gives a null id and type for a body that is not JSON or has no id", () => {
    expect(stripe.verify(signed({ body: "not json" }))).toEqual({ externalId: null, eventType: null });
    expect(stripe.verify(signed({ body: '{"type":"ping"}' }))).toEqual({ externalId: null, eventType: "ping" });
  });

  it("rejects a tampered body", () => {
    expectRejected(stripe, { ...signed(), body: Buffer.from(BODY.replace("evt_1NpZ", "evt_2")) }, "invalid_signature");
  });

  it("rejects a wrong secret", () => {
    const error = expectRejected(stripe, { ...signed(), secrets: [PREVIOUS] }, "invalid_signature");
    expect(error.message).toContain("signature did not match");
  });

  it("rejects a request without Stripe-Signature as missing_signature", () => {
    const input = request({ body: Buffer.from(BODY), headers: {}, secrets: [SECRET] });
    expect(expectRejected(stripe, input, "missing_signature").message).toContain("Stripe-Signature");
  });

  it("rejects a stale timestamp even when correctly signed", () => {
    expect(expectRejected(stripe, signed({ at: NOW_SECONDS - 420 }), "timestamp_out_of_tolerance").message).toContain("420 s old");
  });

  it("rejects a timestamp too far in the future", () => {
    expectRejected(stripe, signed({ at: NOW_SECONDS + 301 }), "timestamp_out_of_tolerance");
  });

  it("rejects a header without t= or without v1=", () => {
    const body = Buffer.from(BODY);
    expectRejected(stripe, request({ body, headers: { "stripe-signature": `v1=${v1(SECRET)}` }, secrets: [SECRET] }), "invalid_signature");
    expectRejected(stripe, request({ body, headers: { "stripe-signature": `t=${NOW_SECONDS},v0=abc` }, secrets: [SECRET] }), "invalid_signature");
  });

  it("rejects a re-timestamped request: the timestamp is part of what is signed", () => {
    const header = `t=${NOW_SECONDS},v1=${v1(SECRET, BODY, NOW_SECONDS - 1000)}`;
    expectRejected(stripe, request({ body: Buffer.from(BODY), headers: { "stripe-signature": header }, secrets: [SECRET] }), "invalid_signature");
  });
});
