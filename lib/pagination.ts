import { ValidationError } from "@/lib/errors";

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

/** An opaque keyset cursor over (time desc, id desc). Microseconds are kept as text so no row is skipped. */
export function encodeCursor(at: Date | string, id: string): string {
  const time = typeof at === "string" ? at : at.toISOString();
  return Buffer.from(JSON.stringify([time, id])).toString("base64url");
}

export function decodeCursor(cursor: string | null | undefined): { at: Date; atText: string; id: string } | null {
  if (!cursor) return null;
  try {
    const [atText, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string];
    const at = new Date(atText);
    if (typeof id !== "string" || Number.isNaN(at.getTime())) throw new Error("bad cursor");
    return { at, atText, id };
  } catch {
    throw new ValidationError("cursor is not one this API gave out.");
  }
}
