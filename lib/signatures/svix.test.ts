import { Webhook } from "svix";
import { describe, expect, it } from "vitest";
import { svix } from "@/lib/signatures/svix";
import { expectRejected, NOW_SECONDS, request } from "@/test/signature-requests";

const SECRET = "whsec_" + Buffer.from("svix-current-secret-32-bytes-long").toString("base64");
const PREVIOUS = "whsec_" + Buffer.from("svix-previous-secret-32-bytes-lon").toString("base64");
const BODY = JSON.stringify({ type: "user.created", data: { id: "u_1" } });

function signed(opts: { secret?: string; body?: string; at?: number } = {}) {
  const { secret = SECRET, body = BODY, at = NOW_SECONDS } = opts;
  const signature = new Webhook(secret).sign("msg_svix_1", new Date(at * 1000), body);
  const headers = { "svix-id": "msg_svix_1", "svix-timestamp": String(at), "svix-signature": signature };
  return request({ body: Buffer.from(body), headers, secrets: [SECRET] });
}

describe("svix", () => {
  it("accepts Svix's documented example", () => {
    const input = request({
      body: Buffer.from('{"test": 2432232314}'),
      headers: {
        "svix-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
        "svix-timestamp": "1614265330",
        "svix-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
      },
      secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
      now: new Date(1614265330 * 1000),
    });
    expect(svix.verify(input)).toEqual({ externalId: "msg_p5jXN8AQM9LWM0D4loKWxJek", eventType: null });
  });

  it("accepts a request signed by the svix SDK and reads svix-id and the body's type", () => {
    expect(svix.verify(signed())).toEqual({ externalId: "msg_svix_1", eventType: "user.created" });
  });

  it("accepts a secret given without its whsec_ prefix", () => {
    expect(svix.verify({ ...signed(), secrets: [SECRET.slice("whsec_".length)] }).externalId).toBe("msg_svix_1");
  });

  it("accepts the previous secret during rotation", () => {
    expect(svix.verify({ ...signed({ secret: PREVIOUS }), secrets: [SECRET, PREVIOUS] }).externalId).toBe("msg_svix_1");
  });

  it("rejects a tampered body", () => {
    expectRejected(svix, { ...signed(), body: Buffer.from(BODY + " ") }, "invalid_signature");
  });

  it("rejects a wrong secret", () => {
    expectRejected(svix, { ...signed(), secrets: [PREVIOUS] }, "invalid_signature");
  });

  it("rejects a request without svix-signature as missing_signature", () => {
    const input = signed();
    delete input.headers["svix-signature"];
    expect(expectRejected(svix, input, "missing_signature").message).toContain("svix-signature");
  });

  it("does not read webhook-* headers in place of svix-* ones", () => {
    const { headers, ...rest } = signed();
    const unbranded = { "webhook-id": headers["svix-id"], "webhook-timestamp": headers["svix-timestamp"], "webhook-signature": headers["svix-signature"] };
    expectRejected(svix, { ...rest, headers: unbranded }, "missing_signature");
  });

  it("rejects a stale timestamp", () => {
    const error = expectRejected(svix, signed({ at: NOW_SECONDS - 301 }), "timestamp_out_of_tolerance");
    expect(error.message).toContain("301 s old");
  });
});
