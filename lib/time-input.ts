// Times as the REST API's filters take them (ISO 8601 with an offset) and as the dashboard's
// datetime-local inputs send and show them (no offset: UTC). Shared by the deliveries' and the
// audit log's filters.
import { z } from "zod";

const TIME_MESSAGE = "must be an ISO 8601 time, e.g. 2026-11-30T12:00:00Z";
// zod takes year 0000, which PostgreSQL cannot store as a timestamptz (a 500 from the query before).
export const isoTime = z.iso.datetime({ offset: true, message: TIME_MESSAGE }).refine((value) => new Date(value).getUTCFullYear() >= 1, TIME_MESSAGE);

const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** `2026-11-30T12:00` (a datetime-local value) → `2026-11-30T12:00:00Z`; ISO times pass through. */
export function utcTime(value: string): string {
  if (!LOCAL_TIME.test(value)) return value;
  return `${value.length === 16 ? `${value}:00` : value}Z`;
}

/** An ISO time → the value a datetime-local input shows (UTC, to the second); "" when unreadable. */
export function localInputValue(value: string | undefined): string {
  const at = value ? new Date(utcTime(value)) : null;
  return at && !Number.isNaN(at.getTime()) ? at.toISOString().slice(0, 19) : "";
}
