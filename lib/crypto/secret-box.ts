// Encryption at rest for endpoint secrets (text) and quarantined requests (bytes): AES-256-GCM with a
// key derived (HKDF) from INBOX_ENCRYPTION_KEY, else AUTH_SECRET. Changing that key makes what was
// stored unreadable.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { config } from "@/lib/config/config";

let cached: { source: string; key: Buffer } | undefined;

function key(): Buffer {
  const source = config().INBOX_ENCRYPTION_KEY;
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

const BYTES_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Seals bytes: a version byte, the IV, the tag, then the ciphertext (28 bytes more than `plaintext`). */
export function sealBytes(plaintext: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.of(BYTES_VERSION), iv, cipher.getAuthTag(), ciphertext]);
}

/** The bytes sealBytes sealed; throws when they were changed or sealed under another key. */
export function openBytes(sealed: Buffer): Buffer {
  if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== BYTES_VERSION) throw new Error("Unreadable sealed bytes.");
  const decipher = createDecipheriv("aes-256-gcm", key(), sealed.subarray(1, 1 + IV_BYTES));
  decipher.setAuthTag(sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
}
