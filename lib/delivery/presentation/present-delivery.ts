import type { attempts, deliveries, deliveryPayloads } from "@/db/schema";

type DeliveryRow = typeof deliveries.$inferSelect;
type PayloadRow = Pick<typeof deliveryPayloads.$inferSelect, "headers" | "body">;
type AttemptRow = typeof attempts.$inferSelect;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The list item of API.md's Deliveries. */
export function presentDeliverySummary(row: DeliveryRow) {
  return {
    id: row.id,
    endpointId: row.endpointId,
    externalId: row.externalId,
    eventType: row.eventType,
    status: row.status,
    receivedAt: row.receivedAt.toISOString(),
    attemptCount: row.attemptCount,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    nextAttemptAt: iso(row.nextAttemptAt),
    deliveredAt: iso(row.deliveredAt),
    sizeBytes: row.sizeBytes,
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

export function presentAttempt(row: AttemptRow) {
  return {
    number: row.number,
    trigger: row.trigger,
    startedAt: row.startedAt.toISOString(),
    durationMs: row.durationMs,
    statusCode: row.statusCode,
    error: row.error,
    responseBody: row.responseBody,
  };
}

export function presentDelivery(row: DeliveryRow, payload: PayloadRow, attemptRows: AttemptRow[]) {
  return {
    ...presentDeliverySummary(row),
    headers: payload.headers,
    ...presentBody(payload.body),
    attempts: attemptRows.map(presentAttempt),
  };
}
export type DeliveryDetail = ReturnType<typeof presentDelivery>;
