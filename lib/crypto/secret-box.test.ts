import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, openBytes, sealBytes } from "./secret-box";

describe("secret box", () => {
  it("round-trips and never stores the plaintext", () => {
    process.env.AUTH_SECRET = "test-auth-secret-for-secret-box";
    const sealed = encryptSecret("whsec_abc");
    expect(sealed).not.toContain("whsec_abc");
    expect(decryptSecret(sealed)).toBe("whsec_abc");
    expect(encryptSecret("whsec_abc")).not.toBe(sealed);
  });

  it("refuses a tampered ciphertext", () => {
    process.env.AUTH_SECRET = "test-auth-secret-for-secret-box";
    const sealed = encryptSecret("whsec_abc").split(":");
    sealed[3] = Buffer.from("whsec_abd").toString("base64");
    expect(() => decryptSecret(sealed.join(":"))).toThrow();
  });

  it("seals bytes (quarantined requests) the same way: round trip, nothing readable, tampering refused", () => {
    process.env.AUTH_SECRET = "test-auth-secret-for-secret-box";
    const plain = Buffer.concat([Buffer.from('{"secret":"sk_live_123"}'), Buffer.from([0, 255, 10])]);
    const sealed = sealBytes(plain);
    expect(sealed.includes(Buffer.from("sk_live_123"))).toBe(false);
    expect(openBytes(sealed).equals(plain)).toBe(true);
    sealed[sealed.length - 1]! ^= 1;
    expect(() => openBytes(sealed)).toThrow();
  });
});
