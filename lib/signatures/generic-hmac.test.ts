import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { genericHmac } from "@/lib/signatures/generic-hmac";
import { expectRejected, request } from "@/test/signature-requests";
import type { GenericHmacConfig } from "@/lib/signatures/types";

const SECRET = "generic-current-secret";
const PREVIOUS = "generic-previous-secret";
const BODY = JSON.stringify({ type: "order.shipped", id: 42 });
const HEX_SHA256: GenericHmacConfig = { header: "X-Signature", algorithm: "sha256", encoding: "hex", prefix: "sha256=", idHeader: "X-Event-Id" };
const BASE64_SHA1: GenericHmacConfig = { header: "x-hook-sig", algorithm: "sha1", encoding: "base64" };

function signed(config: GenericHmacConfig, secret = SECRET, extra: Record<string, string> = {}) {
  const digest = createHmac(config.algorithm, secret).update(BODY).digest(config.encoding);
  const headers = { [config.header.toLowerCase()]: (config.prefix ?? "") + digest, ...extra };
  return request({ body: Buffer.from(BODY), headers, secrets: [SECRET], genericHmac: config });
}

describe("generic-hmac", () => {
  it("accepts sha256/hex with a prefix, reading the configured id header (any case)", () => {
    const input = signed(HEX_SHA256, SECRET, { "x-event-id": "evt_42" });
    expect(genericHmac.verify(input)).toEqual({ externalId: "evt_42", eventType: "order.shipped" });
  });

  it("accepts upper-case hex", () => {
    const input = signed(HEX_SHA256);
    input.headers["x-signature"] = "sha256=" + input.headers["x-signature"].slice("sha256=".length).toUpperCase();
    expect(genericHmac.verify(input).eventType).toBe("order.shipped");
  });

  it("accepts sha1/base64 without a prefix and gives a null id when none is configured", () => {
    expect(genericHmac.verify(signed(BASE64_SHA1))).toEqual({ externalId: null, eventType: "order.shipped" });
  });

  it("gives a null id when the configured id header is absent", () => {
    expect(genericHmac.verify(signed(HEX_SHA256)).externalId).toBeNull();
  });

  it("accepts the previous secret during rotation", () => {
    expect(genericHmac.verify({ ...signed(HEX_SHA256, PREVIOUS), secrets: [SECRET, PREVIOUS] }).eventType).toBe("order.shipped");
  });

  it("rejects a tampered body", () => {
    expectRejected(genericHmac, { ...signed(BASE64_SHA1), body: Buffer.from(BODY.replace("42", "43")) }, "invalid_signature");
  });

  it("rejects a wrong secret", () => {
    expectRejected(genericHmac, { ...signed(HEX_SHA256), secrets: [PREVIOUS] }, "invalid_signature");
  });

  it("rejects a digest of another algorithm than configured", () => {
    expectRejected(genericHmac, { ...signed(BASE64_SHA1), genericHmac: { ...BASE64_SHA1, algorithm: "sha256" } }, "invalid_signature");
  });

  it("rejects a request without the configured header as missing_signature", () => {
    const input = { ...signed(HEX_SHA256), headers: {} };
    expect(expectRejected(genericHmac, input, "missing_signature").message).toContain("X-Signature");
  });

  it("rejects a signature without the configured prefix", () => {
    const input = signed(HEX_SHA256);
    input.headers["x-signature"] = input.headers["x-signature"].slice("sha256=".length);
    expectRejected(genericHmac, input, "invalid_signature");
  });

  it("rejects every request when the endpoint has no generic HMAC settings", () => {
    expectRejected(genericHmac, { ...signed(HEX_SHA256), genericHmac: null }, "invalid_signature");
  });
});
