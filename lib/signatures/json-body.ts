// Reading ids and event types out of a body that may not be JSON at all (form posts, plain text):
// every reader answers null rather than throwing, since the signature has already been accepted.
import { createHash } from "node:crypto";

export type JsonObject = Record<string, unknown>;

function asObject(value: unknown): JsonObject | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

/** The body as a JSON object, or null when it is not JSON or not an object. */
export function readJsonObject(body: Buffer): JsonObject | null {
  try {
    return asObject(JSON.parse(body.toString("utf8")));
  } catch {
    return null;
  }
}

/** A non-empty string field, or null. */
export function stringField(object: JsonObject | null, key: string): string | null {
  const value = object?.[key];
  return typeof value === "string" && value !== "" ? value : null;
}

/** A nested object field, or null. */
export function objectField(object: JsonObject | null, key: string): JsonObject | null {
  return asObject(object?.[key]);
}

/** A string field, or a number field as its decimal text (HubSpot's numeric event ids), or null. */
export function idField(object: JsonObject | null, key: string): string | null {
  const value = object?.[key];
  return typeof value === "number" && Number.isSafeInteger(value) ? String(value) : stringField(object, key);
}

/** The body as a JSON array of objects (batched events: SendGrid, HubSpot), or null. */
export function readJsonArray(body: Buffer): JsonObject[] | null {
  try {
    const value: unknown = JSON.parse(body.toString("utf8"));
    return Array.isArray(value) ? value.map(asObject).filter((item): item is JsonObject => item !== null) : null;
  } catch {
    return null;
  }
}

/**
 * The dedupe key of a batch of events, each with its provider id: the id itself for a batch of one,
 * else a hash of the ids in order (a retry sends the same batch again), else a hash of the body.
 */
export function batchKey(ids: (string | null)[], body: Buffer): string {
  const known = ids.filter((id): id is string => id !== null);
  if (known.length === 1 && ids.length === 1) return known[0]!;
  const hash = createHash("sha256");
  if (known.length === ids.length && known.length > 0) hash.update(`batch:${known.join("\n")}`);
  else hash.update(body);
  return hash.digest("hex");
}
