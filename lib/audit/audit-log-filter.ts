// The audit log list's filter, shared by REST (query parameters) and the dashboard page.
import { z } from "zod";
import { isoTime } from "@/lib/time-input";
import { parseInput } from "@/lib/validation";
import { ACTOR_TYPES, AUDIT_ACTIONS } from "./audit-actions";

export const AuditLogFilter = z.object({
  action: z.enum(AUDIT_ACTIONS, { error: `action must be one of ${AUDIT_ACTIONS.join(", ")}` }).optional(),
  actorType: z.enum(ACTOR_TYPES, { error: "actorType must be user, api_key or system" }).optional(),
  /** A user's id (usr_…) or an API key's id (key_…). */
  actorId: z.string().max(100).optional(),
  since: isoTime.optional(),
  until: isoTime.optional(),
});
export type AuditLogFilter = z.infer<typeof AuditLogFilter>;

export const AUDIT_FILTER_FIELDS = ["action", "actorType", "actorId", "since", "until"] as const;

/** Reads the filter from query parameters (empty values are ignored). */
export function auditLogFilterFromQuery(query: URLSearchParams): AuditLogFilter {
  const values: Record<string, string | undefined> = {};
  for (const name of AUDIT_FILTER_FIELDS) values[name] = query.get(name)?.trim() || undefined;
  return parseInput(AuditLogFilter, values);
}
