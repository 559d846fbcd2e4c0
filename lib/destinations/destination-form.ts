// The dashboard's destination form → the body the REST API's POST and PATCH take, so both go through the same
// verbs and checks. The form shows every field it edits, so what it sends is saved: an empty filter removes it,
// an unticked "Paused" resumes. Empty numbers are left out (a new destination's defaults, an edit's current value).
import { InvalidFilterError } from "@/lib/errors";

/** The filter box's text as JSON: empty → null (every request matches); text that is not JSON → 400 invalid_filter. */
export function filterFromText(text: string): unknown {
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidFilterError(`filter: not JSON (${error instanceof Error ? error.message : "it could not be read"}).`);
  }
}

export function destinationFieldsFromForm(form: FormData): Record<string, unknown> {
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value.trim() : undefined;
  };
  const fields: Record<string, unknown> = {};
  for (const name of ["name", "url"]) {
    const value = text(name);
    if (value !== undefined) fields[name] = value;
  }
  for (const name of ["maxAttempts", "retryBaseSeconds", "timeoutMs"]) {
    const value = text(name);
    if (value) fields[name] = Number(value);
  }
  const filter = form.get("filter");
  if (typeof filter === "string") fields.filter = filterFromText(filter);
  // The circuit breaker: an empty count turns it off.
  const failures = text("autoPauseFailures");
  if (failures !== undefined) fields.autoPause = failures === "" ? null : { consecutiveFailures: Number(failures), minutes: Number(text("autoPauseMinutes") || 0) };
  fields.paused = form.get("paused") === "on";
  return fields;
}

/** What an edit form changes: every field it shows, or, from the list's Pause/Resume button (`pausedOnly`), that alone. */
export function destinationChangesFromForm(form: FormData): Record<string, unknown> {
  return form.get("pausedOnly") ? { paused: form.get("paused") === "on" } : destinationFieldsFromForm(form);
}
