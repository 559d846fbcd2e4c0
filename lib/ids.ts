import { randomFillSync } from "node:crypto";
import { NotFoundError } from "@/lib/errors";

export type IdPrefix = "usr" | "org" | "ep" | "dst" | "dlv" | "key" | "inc" | "mail" | "ses" | "qr" | "inv" | "aud" | "lse" | "ach" | "ntf";

// Random bytes are drawn 4 KiB at a time: one randomBytes(16) per id cost ingest ~15 µs a request
// under load (a getrandom call each), a slice of the pool costs well under 1 µs.
const pool = Buffer.allocUnsafe(4096);
let offset = pool.length;

/**
 * Ids that begin with their time: TIME_ORDERED_MARKER, the milliseconds since 1970 in 9 base-36 digits (until
 * the year 5188), then 15 random base-36 digits (~77 bits). Delivery ids: ingest then adds each to the right
 * edge of the btrees keyed by it (deliveries, delivery_payloads, attempts) instead of a random page of each,
 * and ids sort by receipt. The marker sorts after the first digit of every random id (a 128-bit value's
 * first of 25 base-36 digits is at most `f`), so the ids made before this format are all below it.
 */
const TIME_ORDERED: ReadonlySet<IdPrefix> = new Set(["dlv"]);
const TIME_ORDERED_MARKER = "g";
const RANDOM_DIGITS = 15n;

/**
 * A prefixed, URL-safe id of 25 base-36 digits, e.g. `ep_3k9x…`: 128 random bits, or, for a delivery, its
 * time then ~77 random bits (TIME_ORDERED).
 */
export function newId(prefix: IdPrefix): string {
  if (offset + 16 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const value = (pool.readBigUInt64BE(offset) << 64n) | pool.readBigUInt64BE(offset + 8);
  offset += 16;
  if (!TIME_ORDERED.has(prefix)) return `${prefix}_${value.toString(36).padStart(25, "0")}`;
  const random = (value % 36n ** RANDOM_DIGITS).toString(36).padStart(Number(RANDOM_DIGITS), "0");
  return `${prefix}_${timeOrderedIdFloor(prefix, Date.now()).slice(prefix.length + 1)}${random}`;
}

/**
 * The smallest time-ordered id of `prefix` made at `ms` or later (ids made at `ms` sort at or above it, ids
 * made earlier below it): where a range of ids by time begins.
 */
export function timeOrderedIdFloor(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${TIME_ORDERED_MARKER}${Math.floor(ms).toString(36).padStart(9, "0")}`;
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

/**
 * A stored request is one delivery row per destination it goes to. Its first row (its default destination's when
 * that one takes it, or the one row of a request no destination's filter matched) has the request's own id, as
 * every delivery had before destinations; a row for any further destination has the request's id, `:` and that
 * destination's id. So every request has a row with its own id (search and the payload's key find it), its rows
 * sort together and share its week's partition and payload (delivery_payloads, keyed by the request's id), and
 * `x-inbox-delivery-id` names the request everywhere.
 */
export const REQUEST_ROW_SEPARATOR = ":";

export function deliveryRowId(requestId: string, destinationId: string, first: boolean): string {
  return first ? requestId : `${requestId}${REQUEST_ROW_SEPARATOR}${destinationId}`;
}

/** The request a delivery row belongs to (its own id for a request's default row). */
export function requestIdOf(rowId: string): string {
  const at = rowId.indexOf(REQUEST_ROW_SEPARATOR);
  return at < 0 ? rowId : rowId.slice(0, at);
}

/** requestIdOf in SQL, over an SQL expression. */
export const requestIdSql = (rowId: string): string => `split_part(${rowId}, '${REQUEST_ROW_SEPARATOR}', 1)`;
