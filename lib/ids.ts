import { randomFillSync } from "node:crypto";

export type IdPrefix = "usr" | "org" | "ep" | "dlv" | "key" | "inc" | "mail" | "ses";

// Random bytes are drawn 4 KiB at a time: one randomBytes(16) per id cost ingest ~15 µs a request
// under load (a getrandom call each), a slice of the pool costs well under 1 µs.
const pool = Buffer.allocUnsafe(4096);
let offset = pool.length;

/** A prefixed, random, URL-safe id with 128 bits of entropy, e.g. `ep_3k9x…`. */
export function newId(prefix: IdPrefix): string {
  if (offset + 16 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const value = (pool.readBigUInt64BE(offset) << 64n) | pool.readBigUInt64BE(offset + 8);
  offset += 16;
  return `${prefix}_${value.toString(36).padStart(25, "0")}`;
}
