import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { standardWebhooks } from "@/lib/signatures/standard-webhooks";
import { expectRejected, NOW, NOW_SECONDS, request } from "@/test/signature-requests";

// The reference vector of the Standard Webhooks libraries (also in Svix's manual-verification docs).
const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};

const SECRET = "whsec_" + Buffer.from("current-secret-of-24-bytes!").toString("base64");
const PREVIOUS = "whsec_" + Buffer.from("previous-secret-of-24-byte").toString("base64");
const BODY = JSON.stringify({ type: "invoice.paid", data: { id: "in_1" } });

function signed(opts: { secret?: string; body?: string; id?: string; at?: number } = {}) {
  const { secret = SECRET, body = BODY, id = "msg_1", at = NOW_SECONDS } = opts;
  const signature = new Webhook(secret).sign(id, new Date(at * 1000), body);
  const headers = { "webhook-id": id, "webhook-timestamp": String(at), "webhook-signature": signature };
  return request({ body: Buffer.from(body), headers, secrets: [SECRET] });
}

describe("standard-webhooks", () => {
  it("accepts the published reference vector", () => {
    const input = request({
      body: Buffer.from(VECTOR.body),
      headers: { "webhook-id": VECTOR.id, "webhook-timestamp": String(VECTOR.timestamp), "webhook-signature": VECTOR.signature },
      secrets: [VECTOR.secret],
      now: new Date((VECTOR.timestamp + 10) * 1000),
    });
    expect(standardWebhooks.verify(input)).toEqual({ externalId: VECTOR.id, eventType: null });
    expect(standardWebhooks.verify({ ...input, secrets: [VECTOR.secret.slice("whsec_".length)] }).externalId).toBe(VECTOR.id);
  });

  it("accepts a request signed by the standardwebhooks SDK and reads webhook-id and the body's type", () => {
    expect(standardWebhooks.verify(signed())).toEqual({ externalId: "msg_1", eventType: "invoice.paid" });
  });

  it("accepts the previous secret during rotation", () => {
    const input = { ...signed({ secret: PREVIOUS }), secrets: [SECRET, PREVIOUS] };
    expect(standardWebhooks.verify(input).externalId).toBe("msg_1");
  });

  it("accepts when any of several v1 signatures matches", () => {
    const input = signed();
    const wrong = new Webhook(PREVIOUS).sign("msg_1", NOW, BODY);
    input.headers["webhook-signature"] = `${wrong} v1a,c29tZS1lZDI1NTE5 ${input.headers["webhook-signature"]}`;
    expect(standardWebhooks.verify(input).externalId).toBe("msg_1");
  });

  it("gives a null event type for a body that is not JSON", () => {
    expect(standardWebhooks.verify(signed({ body: "plain text" })).eventType).toBeNull();
  });

  it("rejects a tampered body", () => {
    const input = signed();
    const error = expectRejected(standardWebhooks, { ...input, body: Buffer.from(BODY.replace("in_1", "in_2")) }, "invalid_signature");
    expect(error.message).toMatch(/signature did not match — check the signing secret/);
  });

  it("rejects a tampered webhook-id", () => {
    const input = signed();
    expectRejected(standardWebhooks, { ...input, headers: { ...input.headers, "webhook-id": "msg_2" } }, "invalid_signature");
  });

  it("rejects a wrong secret", () => {
    expectRejected(standardWebhooks, { ...signed(), secrets: [PREVIOUS] }, "invalid_signature");
  });

  it.each(["webhook-signature", "webhook-id", "webhook-timestamp"])("rejects a request without %s as missing_signature", (name) => {
    const input = signed();
    delete input.headers[name];
    expect(expectRejected(standardWebhooks, input, "missing_signature").message).toContain(name);
  });

  it("rejects a stale timestamp even when correctly signed", () => {
    const error = expectRejected(standardWebhooks, signed({ at: NOW_SECONDS - 420 }), "timestamp_out_of_tolerance");
    expect(error.message).toContain("420 s old");
    expect(error.message).toContain("check the sender's clock");
  });

  it("rejects a timestamp too far in the future", () => {
    const error = expectRejected(standardWebhooks, signed({ at: NOW_SECONDS + 400 }), "timestamp_out_of_tolerance");
    expect(error.message).toContain("400 s in the future");
  });

  it("applies the endpoint's tolerance, not the package's fixed 5 minutes", () => {
    expect(standardWebhooks.verify({ ...signed({ at: NOW_SECONDS - 420 }), toleranceSeconds: 600 }).externalId).toBe("msg_1");
    expectRejected(standardWebhooks, { ...signed({ at: NOW_SECONDS - 90 }), toleranceSeconds: 60 }, "timestamp_out_of_tolerance");
  });

  it("rejects a timestamp that is not Unix seconds", () => {
    const input = signed();
    input.headers["webhook-timestamp"] = String(NOW.getTime());
    expect(expectRejected(standardWebhooks, input, "invalid_signature").message).toContain("not a Unix time in seconds");
  });

  it("rejects a signature header with no v1 entry", () => {
    const input = signed();
    input.headers["webhook-signature"] = "v1a,c29tZS1lZDI1NTE5";
    expectRejected(standardWebhooks, input, "invalid_signature");
  });

  it("rejects a body that is not UTF-8, which the package could not sign exactly", () => {
    const input = signed();
    expectRejected(standardWebhooks, { ...input, body: Buffer.from([0x7b, 0xff, 0x7d]) }, "invalid_signature");
  });

  it("rejects when no configured secret is a usable whsec_ secret", () => {
    const error = expectRejected(standardWebhooks, { ...signed(), secrets: ["", "whsec_!!!"] }, "invalid_signature");
    expect(error.message).toContain("no usable signing secret");
  });
});
