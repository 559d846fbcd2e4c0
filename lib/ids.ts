import { randomFillSync } from "node:crypto";
import { NotFoundError } from "@/lib/errors";

export type IdPrefix = "usr" | "org" | "ep" | "dlv" | "key" | "inc" | "mail" | "ses" | "qr" | "inv" | "aud";

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

const ID_FORMATS = new Map<IdPrefix, RegExp>();

/** True when `value` is an id newId(prefix) could have made: the prefix, `_`, 25 base-36 digits. */
export function isId(prefix: IdPrefix, value: string): boolean {
  let format = ID_FORMATS.get(prefix);
  if (!format) ID_FORMATS.set(prefix, (format = new RegExp(`^${prefix}_[0-9a-z]{25}$`)));
  return format.test(value);
}

/** `value` when it is an id of `prefix`, else 404 (`what` not found): garbage never reaches a query. */
export function idOrNotFound(prefix: IdPrefix, value: unknown, what: string): string {
  if (typeof value === "string" && isId(prefix, value)) return value;
  throw new NotFoundError(what);
}
