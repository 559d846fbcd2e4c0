import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { verifyKey } from "discord-interactions";
import { describe, expect, it } from "vitest";
import { discord } from "@/lib/signatures/discord";
import { expectRejected, NOW_SECONDS, request } from "@/test/signature-requests";

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  // The raw 32-byte key in hex, as the Developer Portal shows it: the last 32 bytes of its DER SPKI.
  return { hex: publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("hex"), privateKey };
}
const CURRENT = keyPair();
const PREVIOUS = keyPair();
const COMMAND = JSON.stringify({ id: "1183929873542746112", application_id: "11", type: 2, token: "tok", data: { name: "ping" }, version: 1 });

// Our signer, from Discord's "Security and Authorization" (https://discord.com/developers/docs/interactions/overview#setting-up-an-endpoint-validating-security-request-headers):
// Ed25519 over timestamp + body, hex in X-Signature-Ed25519.
function signed(opts: { privateKey?: KeyObject; body?: string; at?: number } = {}) {
  const { privateKey = CURRENT.privateKey, body = COMMAND, at = NOW_SECONDS } = opts;
  const signature = sign(null, Buffer.from(`${at}${body}`), privateKey).toString("hex");
  return request({ body: Buffer.from(body), headers: { "x-signature-ed25519": signature, "x-signature-timestamp": String(at) }, secrets: [CURRENT.hex] });
}

const sdkAccepts = (input: ReturnType<typeof signed>, key = CURRENT.hex) =>
  verifyKey(input.body, input.headers["x-signature-ed25519"]!, input.headers["x-signature-timestamp"]!, key);

describe("discord", () => {
  it("accepts what discord-interactions' verifyKey accepts, and reads the interaction id", async () => {
    const input = signed();
    expect(await sdkAccepts(input)).toBe(true);
    expect(discord.verify(input)).toEqual({ externalId: "1183929873542746112", eventType: "interaction.2" });
  });

  it("rejects a tampered body, as the SDK does", async () => {
    const input = { ...signed(), body: Buffer.from(COMMAND.replace("ping", "pong")) };
    expect(await sdkAccepts(input)).toBe(false);
    expectRejected(discord, input, "invalid_signature");
  });

  it("rejects a signature by another key, as the SDK does", async () => {
    const input = signed({ privateKey: PREVIOUS.privateKey });
    expect(await sdkAccepts(input)).toBe(false);
    expectRejected(discord, input, "invalid_signature");
  });

  it("accepts the previous public key during rotation", () => {
    expect(discord.verify({ ...signed({ privateKey: PREVIOUS.privateKey }), secrets: [CURRENT.hex, PREVIOUS.hex] }).externalId).toBe("1183929873542746112");
  });

  it("answers an interaction PING with {type: 1} after verifying it, and refuses an unsigned one", async () => {
    const ping = JSON.stringify({ id: "p1", application_id: "11", type: 1, version: 1 });
    const input = signed({ body: ping });
    expect(await sdkAccepts(input)).toBe(true);
    expect(discord.verify(input).handshake).toEqual({ kind: "json", body: { type: 1 } });
    expectRejected(discord, { ...input, headers: {} }, "missing_signature");
  });

  it("answers a webhook-event PING (type 0) with 204, and keys webhook events by a hash of the body", () => {
    expect(discord.verify(signed({ body: JSON.stringify({ version: 1, application_id: "11", type: 0 }) })).handshake).toEqual({ kind: "no-content" });
    const event = JSON.stringify({ version: 1, application_id: "11", type: 1, event: { type: "APPLICATION_AUTHORIZED", timestamp: "2026-03-02T12:00:00Z", data: {} } });
    const verified = discord.verify(signed({ body: event }));
    expect(verified).toEqual({ externalId: expect.stringMatching(/^[0-9a-f]{64}$/), eventType: "APPLICATION_AUTHORIZED" });
  });

  it("rejects a stale timestamp", () => {
    expectRejected(discord, signed({ at: NOW_SECONDS - 301 }), "timestamp_out_of_tolerance");
  });

  it("says the endpoint has no usable key when its secret is not a public key", () => {
    expect(expectRejected(discord, { ...signed(), secrets: ["not-a-key"] }, "invalid_signature").message).toContain("no usable");
  });

  it("tells a key that is not 64 hex characters when it is set", () => {
    expect(discord.secretProblem!(CURRENT.hex)).toBeNull();
    expect(discord.secretProblem!("a-shared-secret")).toContain("64 hex");
  });
});
