// Encryption at rest for endpoint secrets: AES-256-GCM with a key derived (HKDF) from
// INBOX_ENCRYPTION_KEY, else AUTH_SECRET. Changing that key makes stored secrets unreadable.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

let cached: { source: string; key: Buffer } | undefined;

function key(): Buffer {
  const source = process.env.INBOX_ENCRYPTION_KEY || process.env.AUTH_SECRET;
  if (!source) throw new Error("Set AUTH_SECRET (or INBOX_ENCRYPTION_KEY) to encrypt endpoint secrets.");
  if (cached?.source !== source) {
    cached = { source, key: Buffer.from(hkdfSync("sha256", source, "webhook-inbox", "endpoint-secrets/v1", 32)) };
  }
  return cached.key;
}

export function encryptSecret(plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64"), cipher.getAuthTag().toString("base64"), ciphertext.toString("base64")].join(":");
}

export function decryptSecret(sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split(":");
  if (version !== "v1" || !iv || !tag || ciphertext === undefined) throw new Error("Unreadable encrypted secret.");
  const decipher = createDecipheriv("aes-256-gcm", key(), Buffer.from(iv, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64")), decipher.final()]).toString("utf8");
}
