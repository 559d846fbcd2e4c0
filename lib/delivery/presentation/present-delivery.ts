import type { attempts, DeadReason, deliveries, deliveryPayloads } from "@/db/schema";
import { requestIdOf } from "@/lib/ids";
import { BURIED_PREFIX } from "../sql/bury";

type DeliveryRow = typeof deliveries.$inferSelect;
type PayloadRow = Pick<typeof deliveryPayloads.$inferSelect, "headers" | "body">;
type AttemptRow = typeof attempts.$inferSelect;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** How settled a status is: a request's status is its least settled row's (API.md "Destinations"). */
const SETTLEDNESS: Record<DeliveryRow["status"], number> = { delivering: 0, pending: 1, dead: 2, delivered: 3, filtered: 4 };

/**
 * Why a row is dead (API.md `deadReason`), null when it is not. Rows dead before migration 0046 carry none: their
 * last error tells, as BURY (sql/bury.ts) and the engine's settle (engine/finish-attempt.ts) wrote it.
 */
export function deadReasonOf(row: Pick<DeliveryRow, "status" | "deadReason" | "lastError">): DeadReason | null {
  if (row.status !== "dead") return null;
  if (row.deadReason) return row.deadReason;
  if (row.lastError?.startsWith(BURIED_PREFIX)) return "buried";
  return row.lastError?.startsWith("gave up after") ? "exhausted" : "rejected";
}

const latest = (dates: (Date | null)[]) => dates.reduce<Date | null>((a, b) => (b && (!a || b > a) ? b : a), null);
const earliest = (dates: (Date | null)[]) => dates.reduce<Date | null>((a, b) => (b && (!a || b < a) ? b : a), null);

/** One destination's part of a request (`destinations` of the item). */
export function presentDestinationRow(row: DeliveryRow, name: string | undefined) {
  return {
    destinationId: row.destinationId,
    name: name ?? null,
    status: row.status,
    attemptCount: row.attemptCount,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    deadReason: deadReasonOf(row),
    nextAttemptAt: iso(row.nextAttemptAt),
    deliveredAt: iso(row.deliveredAt),
  };
}

/**
 * The list item of API.md's Deliveries: a stored request summed up over its rows (one per destination, or its one
 * `filtered` row). `rows` is not empty; the first row's id is taken as the request's when it has no separator.
 */
export function presentDeliverySummary(rows: readonly DeliveryRow[], names: ReadonlyMap<string, string> = new Map()) {
  const first = rows[0]!;
  const routed = rows.filter((row) => row.status !== "filtered");
  const status = rows.reduce((least, row) => (SETTLEDNESS[row.status] < SETTLEDNESS[least] ? row.status : least), first.status);
  // The last attempt anywhere: the row whose last attempt ended last (its row changed then); rows tried first.
  const lastTried = [...routed].sort((a, b) => Number(b.attemptCount > 0) - Number(a.attemptCount > 0) || b.updatedAt.getTime() - a.updatedAt.getTime())[0];
  return {
    id: requestIdOf(first.id),
    endpointId: first.endpointId,
    externalId: first.externalId,
    eventType: first.eventType,
    status,
    receivedAt: first.receivedAt.toISOString(),
    attemptCount: routed.reduce((sum, row) => sum + row.attemptCount, 0),
    lastStatusCode: lastTried?.lastStatusCode ?? null,
    lastError: lastTried?.lastError ?? null,
    // A request is dead when its least settled row is: what failed tells before what was buried.
    deadReason: status === "dead" ? (routed.map(deadReasonOf).find((reason) => reason && reason !== "buried") ?? "buried") : null,
    nextAttemptAt: iso(earliest(routed.map((row) => row.nextAttemptAt))),
    deliveredAt: status === "delivered" ? iso(latest(routed.map((row) => row.deliveredAt))) : null,
    sizeBytes: first.sizeBytes,
    /** Sent with POST /endpoints/{id}/test-event, not received. */
    test: first.isTest,
    destinations: routed.map((row) => presentDestinationRow(row, names.get(row.destinationId))),
  };
}
export type DeliverySummary = ReturnType<typeof presentDeliverySummary>;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** UTF-8 text when the bytes are valid UTF-8, base64 otherwise. */
export function presentBody(body: Buffer): { body: string; bodyEncoding: "utf8" | "base64" } {
  try {
    return { body: utf8.decode(body), bodyEncoding: "utf8" };
  } catch {
    return { body: body.toString("base64"), bodyEncoding: "base64" };
  }
}

export function presentAttempt(row: AttemptRow, destinationId: string) {
  return {
    destinationId,
    number: row.number,
    trigger: row.trigger,
    startedAt: row.startedAt.toISOString(),
    durationMs: row.durationMs,
    statusCode: row.statusCode,
    error: row.error,
    responseBody: row.responseBody,
    requestHeaders: row.requestHeaders ?? null,
    responseHeaders: row.responseHeaders ?? null,
  };
}

/** `attemptRows`: every attempt of the request's rows, each told apart by its row (delivery_id). */
export function presentDelivery(rows: readonly DeliveryRow[], payload: PayloadRow, attemptRows: AttemptRow[], names: ReadonlyMap<string, string> = new Map()) {
  const destinationOf = new Map(rows.map((row) => [row.id, row.destinationId]));
  const ordered = [...attemptRows].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || a.number - b.number);
  return {
    ...presentDeliverySummary(rows, names),
    headers: payload.headers,
    ...presentBody(payload.body),
    attempts: ordered.map((attempt) => presentAttempt(attempt, destinationOf.get(attempt.deliveryId) ?? rows[0]!.destinationId)),
  };
}
export type DeliveryDetail = ReturnType<typeof presentDelivery>;
