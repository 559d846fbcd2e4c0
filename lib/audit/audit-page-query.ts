// The dashboard's Audit log page speaks the REST API's query parameters (action, actorType, actorId,
// since, until, cursor); its actor select sends one `actor` value ("api_key", or "api_key:key_…"),
// read here into actorType and actorId. Times from datetime-local inputs are taken as UTC.
import { DomainError } from "@/lib/errors";
import { utcTime } from "@/lib/time-input";
import { auditLogFilterFromQuery, type AuditLogFilter } from "./audit-log-filter";

export type SearchParams = Record<string, string | string[] | undefined>;
export type AuditQueryValues = Partial<Record<"action" | "actor" | "since" | "until" | "cursor", string>>;

export interface AuditPageQuery {
  values: AuditQueryValues;
  /** Null when a value is not valid (see error). */
  filter: AuditLogFilter | null;
  cursor: string | null;
  error: string | null;
}

/** `user:usr_…` → actorType and actorId; `system` → actorType alone. */
export function actorParams(actor: string | undefined): { actorType?: string; actorId?: string } {
  if (!actor) return {};
  const at = actor.indexOf(":");
  return at < 0 ? { actorType: actor } : { actorType: actor.slice(0, at), actorId: actor.slice(at + 1) };
}

export function readAuditPageQuery(params: SearchParams): AuditPageQuery {
  const values: AuditQueryValues = {};
  for (const name of ["action", "actor", "since", "until", "cursor"] as const) {
    const raw = params[name];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value) values[name] = name === "since" || name === "until" ? utcTime(value) : value;
  }
  try {
    const { actor, cursor: _cursor, ...rest } = values;
    const query = new URLSearchParams(Object.entries({ ...rest, ...actorParams(actor) }).filter((entry): entry is [string, string] => Boolean(entry[1])));
    return { values, filter: auditLogFilterFromQuery(query), cursor: values.cursor ?? null, error: null };
  } catch (error) {
    if (error instanceof DomainError) return { values, filter: null, cursor: null, error: error.message };
    throw error;
  }
}

/** /audit-log with these values (empty ones left out). */
export function auditLogHref(values: AuditQueryValues, changes: AuditQueryValues = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...values, ...changes })) if (value) query.set(name, value);
  const text = query.toString();
  return text ? `/audit-log?${text}` : "/audit-log";
}
