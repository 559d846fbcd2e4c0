import { describe, expect, it } from "vitest";
import { SignatureError } from "@/lib/errors";
import { verifiers, verifySignature } from "@/lib/signatures";
import { request } from "@/lib/signatures/test-support";
import { type Provider, PROVIDERS } from "@/lib/signatures/types";

describe("signature registry", () => {
  it("has exactly one verifier per provider", () => {
    expect(Object.keys(verifiers).sort()).toEqual([...PROVIDERS].sort());
    for (const provider of PROVIDERS) expect(typeof verifiers[provider].verify).toBe("function");
  });

  it.each(PROVIDERS.filter((p) => p !== "none"))("routes %s to a verifier that refuses an unsigned request", (provider) => {
    const input = request({
      body: Buffer.from('{"type":"x"}'),
      headers: { "content-type": "application/json" },
      secrets: ["whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ="],
      genericHmac: { header: "x-signature", algorithm: "sha256", encoding: "hex" },
    });
    let thrown: unknown;
    try {
      verifySignature(provider, input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SignatureError);
    expect((thrown as SignatureError).code).toBe("missing_signature");
  });

  it("routes none to a verifier that accepts anything", () => {
    expect(verifySignature("none", request({ body: Buffer.from("x"), headers: {} }))).toEqual({ externalId: null, eventType: null });
  });

  it("throws on a provider name it does not know, including Object.prototype keys", () => {
    const input = request({ body: Buffer.from("x"), headers: {} });
    expect(() => verifySignature("paypal" as Provider, input)).toThrow(/Unknown signature provider/);
    expect(() => verifySignature("constructor" as Provider, input)).toThrow(/Unknown signature provider/);
  });
});
