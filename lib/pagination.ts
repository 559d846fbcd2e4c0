import { ValidationError } from "@/lib/errors";
import { isId, type IdPrefix } from "@/lib/ids";

export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;

/** Parses `limit` (1–200, default 50). */
export function pageLimit(raw: unknown): number {
  if (raw === undefined || raw === null || raw === "") return DEFAULT_PAGE_SIZE;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new ValidationError(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}.`);
  }
  return limit;
}

/**
 * An opaque keyset cursor over (time desc, id desc): base64url of `["<ISO time>", "<id>"]`. The time is
 * kept as text with microseconds (deliveries) or milliseconds (endpoints, Date.toISOString) so no row
 * is skipped.
 */
export function encodeCursor(at: Date | string, id: string): string {
  const time = typeof at === "string" ? at : at.toISOString();
  return Buffer.from(JSON.stringify([time, id])).toString("base64url");
}

// Exactly what encodeCursor writes: UTC, milliseconds or microseconds, `Z`. Anything else reaching
// SQL as a timestamptz (`"1"`, year 0, 24:00) would be a database error, so it is refused here.
const CURSOR_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})(\d{3})?Z$/;
const MAX_CURSOR_LENGTH = 200;

function validTime(text: string): Date | null {
  const match = CURSOR_TIME.exec(text);
  if (!match) return null;
  const at = new Date(`${text.slice(0, 23)}Z`);
  // Date accepts 2026-02-30 (as March 2); round-tripping the milliseconds part refuses it.
  if (Number.isNaN(at.getTime()) || at.toISOString() !== `${text.slice(0, 23)}Z` || Number(match[1]) < 1) return null;
  return at;
}

/**
 * The cursor's time and id, or 400 unless it is exactly what encodeCursor wrote: a 2-array of our
 * time format and an id of `idPrefix` (lib/ids.ts). Never lets a malformed value reach SQL.
 */
export function decodeCursor(cursor: string | null | undefined, idPrefix: IdPrefix): { at: Date; atText: string; id: string } | null {
  if (!cursor) return null;
  const refuse = () => new ValidationError("cursor is not one this API gave out.");
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refuse();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw refuse();
  const [atText, id] = parsed as unknown[];
  if (typeof atText !== "string" || typeof id !== "string" || !isId(idPrefix, id)) throw refuse();
  const at = validTime(atText);
  if (!at) throw refuse();
  return { at, atText, id };
}
