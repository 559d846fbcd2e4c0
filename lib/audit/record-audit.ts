// The one writer of the audit log (API.md "Audit log"): every change calls it inside the transaction
// that makes the change, so an entry exists exactly when the change committed. A dry run calls nothing.
import { sql } from "drizzle-orm";
import type { Tx } from "@/db";
import type { Ctx } from "@/lib/context";
import { newId } from "@/lib/ids";

export type AuditAction =
  | "endpoint.created"
  | "endpoint.updated"
  | "endpoint.deleted"
  | "endpoint.secret_rotated"
  | "endpoint.test_event_sent"
  | "destination.created"
  | "destination.updated"
  | "destination.deleted"
  | "alert_channel.created"
  | "alert_channel.updated"
  | "alert_channel.deleted"
  | "delivery.replayed"
  | "delivery.buried"
  | "deliveries.replayed"
  | "deliveries.buried"
  | "api_key.created"
  | "api_key.revoked"
  | "member.invited"
  | "member.invitation_withdrawn"
  | "member.joined"
  | "member.role_changed"
  | "member.removed"
  | "organization.updated";

export type AuditTargetType = "organization" | "endpoint" | "destination" | "delivery" | "api_key" | "member" | "invitation" | "alert_channel";

export interface AuditEntry {
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  /** What changed, never a secret's value: for bulk operations `{filter, count}`. */
  details?: Record<string, unknown>;
}

/**
 * Appends one entry for ctx's organization, actor and address. The actor's label (a user's email, a
 * key's name) is copied in the same statement so the entry still says who after they are gone.
 */
export async function recordAudit(ctx: Ctx & { db: Tx }, entry: AuditEntry): Promise<void> {
  const { actor } = ctx;
  const actorId = actor.type === "user" ? actor.userId : actor.type === "api_key" ? actor.apiKeyId : null;
  const label =
    actor.type === "user"
      ? sql`(select email from users where id = ${actorId})`
      : actor.type === "api_key"
        ? sql`(select name from api_keys where id = ${actorId} and organization_id = ${ctx.organizationId})`
        : sql`null`;
  await ctx.db.execute(sql`
    insert into audit_log (id, organization_id, action, actor_type, actor_id, actor_label, target_type, target_id, details, ip)
    values (${newId("aud")}, ${ctx.organizationId}, ${entry.action}, ${actor.type}, ${actorId}, ${label},
            ${entry.target.type}, ${entry.target.id}, ${JSON.stringify(entry.details ?? {})}::jsonb, ${ctx.ip ?? null})`);
}
