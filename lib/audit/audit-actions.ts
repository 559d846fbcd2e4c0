// Every action the audit log records (API.md "Audit log"), for the list's filter and the dashboard.
import type { AuditAction } from "./record-audit";

export const AUDIT_ACTIONS = [
  "endpoint.created",
  "endpoint.updated",
  "endpoint.deleted",
  "endpoint.secret_rotated",
  "endpoint.test_event_sent",
  "destination.created",
  "destination.updated",
  "destination.deleted",
  "alert_channel.created",
  "alert_channel.updated",
  "alert_channel.deleted",
  "delivery.replayed",
  "delivery.buried",
  "deliveries.replayed",
  "deliveries.buried",
  "api_key.created",
  "api_key.revoked",
  "member.invited",
  "member.invitation_withdrawn",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "organization.updated",
] as const satisfies readonly AuditAction[];

// A compile error here means an action was added to AuditAction but not to the list above.
const everyActionListed: Exclude<AuditAction, (typeof AUDIT_ACTIONS)[number]> extends never ? true : never = true;
void everyActionListed;

export const ACTOR_TYPES = ["user", "api_key", "system"] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];
