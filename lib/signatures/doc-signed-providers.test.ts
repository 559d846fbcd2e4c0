// Providers with a timestamp or a handshake and no official SDK verifier (Zoom, Twitch, Calendly,
// Mailgun, Meta's GET): our signer follows each provider's docs, cited, independently of the verifier.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { calendly } from "@/lib/signatures/calendly";
import { mailgun } from "@/lib/signatures/mailgun";
import { meta } from "@/lib/signatures/meta";
import { expectRejected, NOW, NOW_SECONDS, request } from "@/test/signature-requests";
import { twitch } from "@/lib/signatures/twitch";
import { zoom } from "@/lib/signatures/zoom";

const SECRET = "provider-current-secret";
const PREVIOUS = "provider-previous-secret";
const hex = (secret: string, text: string) => createHmac("sha256", secret).update(text).digest("hex");

describe("zoom (https://developers.zoom.us/docs/api/webhooks/#verify-webhook-events)", () => {
  const event = JSON.stringify({ event: "meeting.started", event_ts: 1772452800000, payload: { object: { id: "85746065432" } } });
  const signed = (body = event, secret = SECRET, at = NOW_SECONDS) =>
    request({ body: Buffer.from(body), headers: { "x-zm-signature": `v0=${hex(secret, `v0:${at}:${body}`)}`, "x-zm-request-timestamp": String(at) }, secrets: [SECRET] });

  it("accepts a signed event; no event id, so a hash of the body is the key", () => {
    expect(zoom.verify(signed())).toEqual({ externalId: expect.stringMatching(/^[0-9a-f]{64}$/), eventType: "meeting.started" });
  });

  it("answers a verified endpoint.url_validation with plainToken and its HMAC under the secret that verified", () => {
    const body = JSON.stringify({ payload: { plainToken: "qgg8vlvZRS6UYooatFL8Aw" }, event_ts: 1654503849680, event: "endpoint.url_validation" });
    expect(zoom.verify({ ...signed(body, PREVIOUS), secrets: [SECRET, PREVIOUS] }).handshake).toEqual({
      kind: "json",
      body: { plainToken: "qgg8vlvZRS6UYooatFL8Aw", encryptedToken: hex(PREVIOUS, "qgg8vlvZRS6UYooatFL8Aw") },
    });
    expectRejected(zoom, { ...signed(body), secrets: [PREVIOUS] }, "invalid_signature");
  });

  it("rejects a tampered body, a stale timestamp and a missing signature", () => {
    expectRejected(zoom, { ...signed(), body: Buffer.from(event.replace("started", "ended")) }, "invalid_signature");
    expectRejected(zoom, signed(event, SECRET, NOW_SECONDS - 301), "timestamp_out_of_tolerance");
    expectRejected(zoom, { ...signed(), headers: { "x-zm-request-timestamp": String(NOW_SECONDS) } }, "missing_signature");
  });
});

describe("twitch (https://dev.twitch.tv/docs/eventsub/handling-webhook-events/#verifying-the-event-message)", () => {
  const at = NOW.toISOString().replace("Z", "123456Z"); // Twitch sends nanoseconds
  const signed = (body: string, type: string, secret = SECRET, timestamp = at) => {
    const id = "befa7b53-d79d-478f-86b9-120f112b044e";
    const headers = {
      "twitch-eventsub-message-id": id, "twitch-eventsub-message-timestamp": timestamp, "twitch-eventsub-message-type": type,
      "twitch-eventsub-subscription-type": "channel.follow", "twitch-eventsub-message-signature": `sha256=${hex(secret, id + timestamp + body)}`,
    };
    return request({ body: Buffer.from(body), headers, secrets: [SECRET] });
  };
  const notification = JSON.stringify({ subscription: { type: "channel.follow" }, event: { user_id: "1337" } });

  it("accepts a notification and reads the message id and subscription type", () => {
    expect(twitch.verify(signed(notification, "notification"))).toEqual({ externalId: "befa7b53-d79d-478f-86b9-120f112b044e", eventType: "channel.follow" });
  });

  it("answers a verified webhook_callback_verification with the raw challenge, and not an unverified one", () => {
    const body = JSON.stringify({ challenge: "pogchamp-kappa-360noscope-vohiyo", subscription: { type: "channel.follow" } });
    expect(twitch.verify(signed(body, "webhook_callback_verification")).handshake).toEqual({ kind: "text", body: "pogchamp-kappa-360noscope-vohiyo" });
    expectRejected(twitch, signed(body, "webhook_callback_verification", PREVIOUS), "invalid_signature");
  });

  it("rejects a tampered body, a stale timestamp and a timestamp that is not RFC 3339", () => {
    expectRejected(twitch, { ...signed(notification, "notification"), body: Buffer.from(notification.replace("1337", "1338")) }, "invalid_signature");
    expectRejected(twitch, signed(notification, "notification", SECRET, new Date(NOW.getTime() - 301_000).toISOString()), "timestamp_out_of_tolerance");
    expectRejected(twitch, signed(notification, "notification", SECRET, String(NOW_SECONDS)), "invalid_signature");
  });
});

describe("calendly (https://developer.calendly.com/api-docs/4c305798a61d3-webhook-signatures)", () => {
  const body = JSON.stringify({ event: "invitee.created", created_at: "2026-03-02T12:00:00.000000Z", payload: { uri: "https://api.calendly.com/scheduled_events/E1/invitees/I1" } });
  const signed = (secret = SECRET, at = NOW_SECONDS) =>
    request({ body: Buffer.from(body), headers: { "calendly-webhook-signature": `t=${at},v1=${hex(secret, `${at}.${body}`)}` }, secrets: [SECRET] });

  it("accepts a signed event, keyed by a hash of the body", () => {
    expect(calendly.verify(signed())).toEqual({ externalId: expect.stringMatching(/^[0-9a-f]{64}$/), eventType: "invitee.created" });
    expect(calendly.verify({ ...signed(PREVIOUS), secrets: [SECRET, PREVIOUS] }).eventType).toBe("invitee.created");
  });

  it("rejects a tampered body, a wrong key and a stale timestamp", () => {
    expectRejected(calendly, { ...signed(), body: Buffer.from(body.replace("created", "canceled")) }, "invalid_signature");
    expectRejected(calendly, { ...signed(), secrets: [PREVIOUS] }, "invalid_signature");
    expectRejected(calendly, signed(SECRET, NOW_SECONDS - 301), "timestamp_out_of_tolerance");
  });
});

describe("mailgun (https://documentation.mailgun.com/docs/mailgun/user-manual/webhooks/securing-webhooks)", () => {
  const token = "6c0f6fa5a6f1b0c7b2ad5e1c0d2f4a9e3b7c8d1e2f3a4b5c6d";
  const signature = (secret = SECRET, at = NOW_SECONDS) => ({ timestamp: String(at), token, signature: hex(secret, `${at}${token}`) });
  const json = (sig = signature()) => JSON.stringify({ signature: sig, "event-data": { id: "CPgfbmQMTCKtHW6uIWtuVe", event: "delivered" } });

  it("accepts a JSON body whose signature object is signed, and reads event-data", () => {
    expect(mailgun.verify(request({ body: Buffer.from(json()), headers: { "content-type": "application/json" }, secrets: [SECRET] }))).toEqual({ externalId: "CPgfbmQMTCKtHW6uIWtuVe", eventType: "delivered" });
  });

  it("accepts a legacy form post, keyed by its token", () => {
    const form = new URLSearchParams({ ...signature(), event: "delivered", recipient: "a@example.com" }).toString();
    expect(mailgun.verify(request({ body: Buffer.from(form), headers: { "content-type": "application/x-www-form-urlencoded" }, secrets: [SECRET] })).externalId).toBe(token);
  });

  it("rejects a wrong key, a forged signature, a stale timestamp and an unsigned body", () => {
    const input = (body: string) => request({ body: Buffer.from(body), headers: {}, secrets: [SECRET] });
    expectRejected(mailgun, input(json(signature(PREVIOUS))), "invalid_signature");
    expectRejected(mailgun, input(json({ ...signature(), token: "another-token" })), "invalid_signature");
    expectRejected(mailgun, input(json(signature(SECRET, NOW_SECONDS - 301))), "timestamp_out_of_tolerance");
    expectRejected(mailgun, input(JSON.stringify({ "event-data": { id: "x" } })), "missing_signature");
  });
});

describe("meta's GET subscription handshake (https://developers.facebook.com/docs/graph-api/webhooks/getting-started#verification-requests)", () => {
  const query = (token: string | null) =>
    new URLSearchParams({ "hub.mode": "subscribe", "hub.challenge": "1158201444", ...(token === null ? {} : { "hub.verify_token": token }) });

  it("echoes the challenge as text when the verify token matches", () => {
    expect(meta.answerGet!({ query: query("meatpacking"), verifyToken: "meatpacking" })).toEqual({ kind: "text", body: "1158201444" });
  });

  it("refuses a wrong or missing token, and an endpoint without one", () => {
    expect(() => meta.answerGet!({ query: query("guess"), verifyToken: "meatpacking" })).toThrow(/does not match/);
    expect(() => meta.answerGet!({ query: query(null), verifyToken: "meatpacking" })).toThrow(/missing/);
    expect(() => meta.answerGet!({ query: query("meatpacking"), verifyToken: null })).toThrow(/no verify token/);
  });

  it("is not a handshake without hub.mode=subscribe and a challenge (405)", () => {
    expect(meta.answerGet!({ query: new URLSearchParams(), verifyToken: "meatpacking" })).toBeNull();
  });
});
