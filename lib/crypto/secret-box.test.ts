import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret } from "./secret-box";

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
});
