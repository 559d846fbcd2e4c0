// Public keys for the providers that sign with a private key (Discord: Ed25519, SendGrid: ECDSA
// P-256): the endpoint stores the provider's public key, which proves the sender without our
// holding anything that could sign. Parsed keys are kept by their text, since a key parses the same
// every time and ingest sees the same few keys over and over.
import { createPublicKey, type KeyObject } from "node:crypto";
import { SignatureError } from "@/lib/errors";
import { noUsableSecret } from "@/lib/signatures/hmac";

// The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the raw 32-byte key follows it.
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const parsed = new Map<string, KeyObject | null>();

function cached(text: string, parse: () => KeyObject | null): KeyObject | null {
  let key = parsed.get(text);
  if (key === undefined) {
    try {
      key = parse();
    } catch {
      key = null;
    }
    if (parsed.size > 1_000) parsed.clear();
    parsed.set(text, key);
  }
  return key;
}

/** An Ed25519 public key from its 64 hex characters (as Discord shows it), or null. */
export function ed25519PublicKey(hex: string): KeyObject | null {
  return cached(`ed25519:${hex}`, () => {
    if (!/^[0-9a-f]{64}$/i.test(hex)) return null;
    return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex, "hex")]), format: "der", type: "spki" });
  });
}

/** A P-256 public key from base64 DER SPKI (as SendGrid shows it) or PEM, or null. */
export function p256PublicKey(text: string): KeyObject | null {
  return cached(`p256:${text}`, () => {
    const base64 = text.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return null;
    const key = createPublicKey({ key: Buffer.from(base64, "base64"), format: "der", type: "spki" });
    return key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1" ? key : null;
  });
}

/** Passes when some stored key `verifies` the signature; throws invalid_signature otherwise. */
export function requireKeySignature(keys: string[], parse: (text: string) => KeyObject | null, verifies: (key: KeyObject) => boolean): void {
  let usable = 0;
  for (const text of keys) {
    const key = parse(text);
    if (!key) continue;
    usable++;
    if (verifiesSafely(verifies, key)) return;
  }
  if (usable === 0) throw noUsableSecret();
  throw new SignatureError("invalid_signature", "signature did not match — check the public key, and that nothing rewrites the body before it reaches us");
}

/** A signature that does not even parse (bad DER) is one that does not verify. */
function verifiesSafely(verifies: (key: KeyObject) => boolean, key: KeyObject): boolean {
  try {
    return verifies(key);
  } catch {
    return false;
  }
}
