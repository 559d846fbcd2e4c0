import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { slack } from "@/lib/signatures/slack";
import { expectRejected, NOW_SECONDS, request } from "@/test/signature-requests";

// The worked example of Slack's "Verifying requests from Slack" docs (a slash command, form-encoded).
const DOC = {
  secret: "8f742231b10e8888abcd99yyyzzz85a5",
  timestamp: "1531420618",
  body:
    "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar" +
    "&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com" +
    "%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c",
  signature: "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
};

// No Slack SDK is installed; this signer follows Slack's docs, independently of the verifier.
const SECRET = "slack-current-signing-secret";
const PREVIOUS = "slack-previous-signing-secret";
const EVENT = JSON.stringify({ type: "event_callback", event_id: "Ev08MFMKH6", event: { type: "app_mention", text: "hi" } });

function signed(opts: { secret?: string; body?: string; at?: number } = {}) {
  const { secret = SECRET, body = EVENT, at = NOW_SECONDS } = opts;
  const signature = "v0=" + createHmac("sha256", secret).update(`v0:${at}:${body}`).digest("hex");
  const headers = { "x-slack-signature": signature, "x-slack-request-timestamp": String(at) };
  return request({ body: Buffer.from(body), headers, secrets: [SECRET] });
}

describe("slack", () => {
  it("accepts Slack's documented example and falls back to a hash of a form body for the id", () => {
    const input = request({
      body: Buffer.from(DOC.body),
      headers: { "x-slack-signature": DOC.signature, "x-slack-request-timestamp": DOC.timestamp },
      secrets: [DOC.secret],
      now: new Date((Number(DOC.timestamp) + 60) * 1000),
    });
    const sha256 = createHash("sha256").update(DOC.body).digest("hex");
    expect(slack.verify(input)).toEqual({ externalId: sha256, eventType: null });
  });

  it("accepts an Events API request and reads event_id and the inner event type", () => {
    expect(slack.verify(signed())).toEqual({ externalId: "Ev08MFMKH6", eventType: "app_mention" });
  });

  it("answers a verified url_verification handshake with its challenge", () => {
    const body = JSON.stringify({ token: "Jhj5dZrVaK7ZwHHjRyZWjbDl", challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", type: "url_verification" });
    const verified = slack.verify(signed({ body }));
    expect(verified.handshake).toEqual({ kind: "json", body: { challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" } });
    expect(verified.eventType).toBe("url_verification");
  });

  it("does not answer a url_verification handshake with a bad signature", () => {
    const body = JSON.stringify({ challenge: "abc", type: "url_verification" });
    expectRejected(slack, { ...signed({ body, secret: PREVIOUS }), secrets: [SECRET] }, "invalid_signature");
  });

  it("accepts the previous secret during rotation", () => {
    expect(slack.verify({ ...signed({ secret: PREVIOUS }), secrets: [SECRET, PREVIOUS] }).externalId).toBe("Ev08MFMKH6");
  });

  it("rejects a tampered body", () => {
    expectRejected(slack, { ...signed(), body: Buffer.from(EVENT.replace("hi", "ho")) }, "invalid_signature");
  });

  it("rejects a wrong secret", () => {
    expectRejected(slack, { ...signed(), secrets: [PREVIOUS] }, "invalid_signature");
  });

  it.each(["x-slack-signature", "x-slack-request-timestamp"])("rejects a request without %s as missing_signature", (name) => {
    const input = signed();
    delete input.headers[name];
    expect(expectRejected(slack, input, "missing_signature").message.toLowerCase()).toContain(name);
  });

  it("rejects a stale timestamp even when correctly signed", () => {
    expect(expectRejected(slack, signed({ at: NOW_SECONDS - 420 }), "timestamp_out_of_tolerance").message).toContain("420 s old");
  });

  it("rejects a timestamp too far in the future", () => {
    expectRejected(slack, signed({ at: NOW_SECONDS + 600 }), "timestamp_out_of_tolerance");
  });

  it("rejects a signature of another version than v0", () => {
    const input = signed();
    input.headers["x-slack-signature"] = input.headers["x-slack-signature"].replace("v0=", "v1=");
    expectRejected(slack, input, "invalid_signature");
  });
});
