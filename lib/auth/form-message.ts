// What a dashboard form says when the lib refuses its input. The lib's messages name the API's fields
// ("destinationUrl must use http or https.", "maxAttempts: Too big: …") because REST callers send
// those names; a person filling in a form sees the form's labels and sentences instead.
import { DomainError, ValidationError } from "@/lib/errors";

/** The API's field names as the dashboard's forms label them. */
const FIELD_LABELS: Record<string, string> = {
  name: "Name",
  provider: "Provider",
  secret: "Signing secret",
  destinationUrl: "Destination URL",
  url: "URL",
  maxAttempts: "Max attempts",
  retryBaseSeconds: "Retry base (seconds)",
  timeoutMs: "Timeout (ms)",
  maxBodyBytes: "Max body size (bytes)",
  toleranceSeconds: "Signature tolerance (seconds)",
  alertPendingAgeSeconds: "The alert threshold",
  alertEmail: "Alert email",
  outboundSecret: "Outbound signing secret",
  genericHmac: "The Generic HMAC settings",
  "genericHmac.header": "Signature header",
  "genericHmac.prefix": "Signature prefix",
  "genericHmac.idHeader": "Event id header",
  "genericHmac.algorithm": "Algorithm",
  "genericHmac.encoding": "Encoding",
  endpointId: "Endpoint",
  status: "Status",
  eventType: "Event type",
  since: "Received from",
  until: "Received until",
};

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The field a validation message is about: zod's issue path, else a leading `field: `. */
function fieldOf(error: ValidationError): string | null {
  const issues = Array.isArray(error.details) ? (error.details as Array<{ path?: unknown[] }>) : [];
  const path = issues[0]?.path;
  if (Array.isArray(path) && path.length > 0) return path.join(".");
  const leading = /^([A-Za-z][\w.]*)(?:: | )/.exec(error.message)?.[1];
  return leading && Object.hasOwn(FIELD_LABELS, leading) ? leading : null;
}

/** A refused form's message as a sentence in the form's words. */
export function formMessage(error: DomainError): string {
  if (!(error instanceof ValidationError)) return error.message;
  const field = fieldOf(error);
  const label = field && Object.hasOwn(FIELD_LABELS, field) ? FIELD_LABELS[field] : undefined;
  if (!field || !label) return error.message;
  const text = error.message.startsWith(`${field}: `) ? error.message.slice(field.length + 2) : error.message;
  const named = [field, field.split(".").at(-1)!].find((name) => text.startsWith(`${name} `));
  if (named) return capitalised(label + text.slice(named.length));
  // Inside a sentence only an identifier (outboundSecret, genericHmac.header) is the API's word; "secret" is English.
  if (/[A-Z.]/.test(field) && text.includes(field)) return capitalised(text.replaceAll(field, label.toLowerCase()));
  // A hand-written message is a sentence once its prefix is gone; zod's own ("Too big: …") needs its subject.
  return error.details === undefined ? capitalised(text) : `${label}: ${text.charAt(0).toLowerCase()}${text.slice(1)}`;
}
