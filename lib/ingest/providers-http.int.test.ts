// The new providers through the real Next.js server and real HTTP: a URL-signing provider (Twilio,
// signing the URL as APP_URL names it, not the address we were reached at), a public-key provider
// (Discord, with its PING handshakes), Meta's GET subscription handshake, Twitch's text challenge,
// and dedupe on each provider's own id. Handshakes store nothing.
import { createHmac, generateKeyPairSync, sign } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { startNextServer, type RunningServer } from "@/test/next-server";

const database = useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
// What providers are told to send to: a public name in front of us, not the address the test reaches.
const APP_URL = "https://hooks.example.com";
let server: RunningServer;
let org: Awaited<ReturnType<typeof createOrganizationFixture>>;

beforeAll(async () => {
  server = await startNextServer({ databaseUrl: database.url(), env: { APP_URL } });
  org = await createOrganizationFixture("Providers over HTTP");
}, 240_000);
afterAll(async () => {
  await server?.stop();
});

const endpoint = (provider: string, secret: string, extra: Record<string, unknown> = {}) =>
  createEndpoint({ ctx: org.ctx, input: { name: provider, provider, secret, destinationUrl: "http://127.0.0.1:9/", ...extra } });

async function send(path: string, init: RequestInit) {
  const response = await fetch(`${server.url}${path}`, init);
  const text = await response.text();
  return { status: response.status, type: response.headers.get("content-type"), text, json: () => JSON.parse(text) };
}

const stored = async (endpointId: string) =>
  (await getSql()`select external_id from deliveries where endpoint_id = ${endpointId} order by received_at`).map((row) => row.external_id as string);

describe("twilio over HTTP", () => {
  it("verifies the form over APP_URL + path + query, dedupes on I-Twilio-Idempotency-Token, and refuses a signature over the address it was reached at", async () => {
    const token = "twilio-auth-token-over-http";
    const { id } = await endpoint("twilio", token);
    const params = { MessageSid: "SM1", From: "+14158675309", To: "+18005551212", Body: "hi there" };
    const signature = (url: string) => createHmac("sha1", token).update(Object.keys(params).sort().reduce((text, name) => text + name + params[name as keyof typeof params], url)).digest("base64");
    const post = (url: string, idempotency: string) =>
      send(`/in/${id}?source=sms`, {
        method: "POST",
        body: new URLSearchParams(params).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature(url), "i-twilio-idempotency-token": idempotency },
      });

    const first = await post(`${APP_URL}/in/${id}?source=sms`, "idem-a");
    expect(first.status).toBe(200);
    expect(first.json()).toEqual({ id: expect.stringMatching(/^dlv_/), duplicate: false });
    const again = await post(`${APP_URL}/in/${id}?source=sms`, "idem-a");
    expect(again.json()).toEqual({ id: first.json().id, duplicate: true });
    const reachedAt = await post(`${server.url}/in/${id}?source=sms`, "idem-b");
    expect(reachedAt.status).toBe(401);
    expect(reachedAt.json().error.code).toBe("invalid_signature");
    expect(await stored(id)).toEqual(["idem-a"]);
  });
});

describe("discord over HTTP", () => {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const publicHex = publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("hex");
  const signed = (body: string) => {
    const at = String(Math.floor(Date.now() / 1000));
    return { method: "POST", body, headers: { "content-type": "application/json", "x-signature-timestamp": at, "x-signature-ed25519": sign(null, Buffer.from(at + body), privateKey).toString("hex") } };
  };

  it("answers both PINGs after verifying them, stores neither, and dedupes interactions on their id", async () => {
    const { id } = await endpoint("discord", publicHex);
    const ping = await send(`/in/${id}`, signed(JSON.stringify({ id: "ping-1", application_id: "11", type: 1, version: 1 })));
    expect(ping.status).toBe(200);
    expect(ping.json()).toEqual({ type: 1 });
    const eventPing = await send(`/in/${id}`, signed(JSON.stringify({ version: 1, application_id: "11", type: 0 })));
    expect(eventPing.status).toBe(204);
    const unsigned = await send(`/in/${id}`, { method: "POST", body: JSON.stringify({ type: 1 }), headers: { "content-type": "application/json" } });
    expect(unsigned.status).toBe(401);

    const command = JSON.stringify({ id: "1183929873542746112", application_id: "11", type: 2, data: { name: "hello" }, version: 1 });
    const first = await send(`/in/${id}`, signed(command));
    expect(first.json().duplicate).toBe(false);
    expect((await send(`/in/${id}`, signed(command))).json()).toEqual({ id: first.json().id, duplicate: true });
    expect(await stored(id)).toEqual(["1183929873542746112"]);
  });

  it("refuses to create a Discord endpoint whose secret is not a public key", async () => {
    await expect(endpoint("discord", "a-shared-secret")).rejects.toThrow(/64 hex/);
  });
});

describe("meta over HTTP", () => {
  it("answers GET hub.challenge as text when the verify token matches, refuses a wrong one, and stores nothing", async () => {
    const { id } = await endpoint("meta", "meta-app-secret", { verifyToken: "meatpacking-district" });
    const get = (token: string) => send(`/in/${id}?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`, { method: "GET" });
    const answered = await get("meatpacking-district");
    expect(answered.status).toBe(200);
    expect(answered.text).toBe("1158201444");
    expect(answered.type).toMatch(/^text\/plain/);
    const wrong = await get("guess");
    expect(wrong.status).toBe(401);
    expect(wrong.json().error.code).toBe("invalid_signature");
    expect((await send(`/in/${id}`, { method: "GET" })).status).toBe(405);
    expect(await stored(id)).toEqual([]);
  });

  it("stores a signed POST once, and answers GET on a provider without a GET handshake with 405", async () => {
    const { id } = await endpoint("meta", "meta-app-secret");
    const body = JSON.stringify({ object: "page", entry: [{ id: "1", time: 1772452800, changes: [] }] });
    const post = () => send(`/in/${id}`, { method: "POST", body, headers: { "content-type": "application/json", "x-hub-signature-256": `sha256=${createHmac("sha256", "meta-app-secret").update(body).digest("hex")}` } });
    const first = await post();
    expect(first.status).toBe(200);
    expect((await post()).json()).toEqual({ id: first.json().id, duplicate: true });
    const github = await endpoint("github", "gh-secret");
    const get = await send(`/in/${github.id}?hub.mode=subscribe&hub.verify_token=x&hub.challenge=1`, { method: "GET" });
    expect(get.status).toBe(405);
  });
});

describe("twitch over HTTP", () => {
  it("answers webhook_callback_verification with the raw challenge as text/plain and stores it not", async () => {
    const { id } = await endpoint("twitch", "twitch-subscription-secret");
    const body = JSON.stringify({ challenge: "pogchamp-kappa-360noscope-vohiyo", subscription: { type: "channel.follow" } });
    const at = new Date().toISOString();
    const messageId = "e76c6bd4-55c9-4987-8304-da1588d8988b";
    const answered = await send(`/in/${id}`, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json", "twitch-eventsub-message-id": messageId, "twitch-eventsub-message-timestamp": at, "twitch-eventsub-message-type": "webhook_callback_verification",
        "twitch-eventsub-message-signature": `sha256=${createHmac("sha256", "twitch-subscription-secret").update(messageId + at + body).digest("hex")}`,
      },
    });
    expect(answered.status).toBe(200);
    expect(answered.type).toMatch(/^text\/plain/);
    expect(answered.text).toBe("pogchamp-kappa-360noscope-vohiyo");
    expect(await stored(id)).toEqual([]);
  });
});
