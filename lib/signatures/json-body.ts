// Reading ids and event types out of a body that may not be JSON at all (form posts, plain text):
// every reader answers null rather than throwing, since the signature has already been accepted.

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
