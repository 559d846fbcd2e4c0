import { sql, type SQL } from "drizzle-orm";
import { auditLog } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { decodeCursor, encodeCursor, pageLimit } from "@/lib/pagination";
import type { AuditLogFilter } from "./audit-log-filter";

export interface AuditEntryView {
  id: string;
  at: string;
  action: string;
  actor: { type: "user" | "api_key" | "system"; id: string | null; label: string | null };
  target: { type: string; id: string };
  details: Record<string, unknown>;
  ip: string | null;
}

const cursorAt = sql<string>`to_char(${auditLog.at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * ctx's organization's entries, newest first, keyset-paginated on (at, id) with microsecond precision.
 * Walks audit_log_org_action_at_idx with an action, else audit_log_org_at_idx (ARCHITECTURE.md); the
 * actor and time filters narrow that walk (an organization's log is people's changes: small).
 */
export async function listAuditLog({ ctx, input }: { ctx: Ctx; input: AuditLogFilter & { limit?: unknown; cursor?: string | null } }) {
  const limit = pageLimit(input.limit);
  const cursor = decodeCursor(input.cursor, "aud");
  const conditions: SQL[] = [sql`${auditLog.organizationId} = ${ctx.organizationId}`];
  if (input.action) conditions.push(sql`${auditLog.action} = ${input.action}`);
  if (input.actorType) conditions.push(sql`${auditLog.actorType} = ${input.actorType}`);
  if (input.actorId) conditions.push(sql`${auditLog.actorId} = ${input.actorId}`);
  if (input.since) conditions.push(sql`${auditLog.at} >= ${new Date(input.since).toISOString()}::timestamptz`);
  if (input.until) conditions.push(sql`${auditLog.at} <= ${new Date(input.until).toISOString()}::timestamptz`);
  if (cursor) conditions.push(sql`(${auditLog.at}, ${auditLog.id}) < (${cursor.atText}::timestamptz, ${cursor.id})`);
  const rows = await ctx.db
    .select({
      id: auditLog.id, at: auditLog.at, cursorAt, action: auditLog.action, actorType: auditLog.actorType, actorId: auditLog.actorId,
      actorLabel: auditLog.actorLabel, targetType: auditLog.targetType, targetId: auditLog.targetId, details: auditLog.details, ip: auditLog.ip,
    })
    .from(auditLog)
    .where(sql.join(conditions, sql` and `))
    // NULLS LAST is how the indexes are built (drizzle's .desc()); a plain desc could not walk them.
    .orderBy(sql`${auditLog.at} desc nulls last`, sql`${auditLog.id} desc nulls last`)
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map((row): AuditEntryView => ({
      id: row.id,
      at: row.at.toISOString(),
      action: row.action,
      actor: { type: row.actorType, id: row.actorId, label: row.actorLabel },
      target: { type: row.targetType, id: row.targetId },
      details: row.details,
      ip: row.ip,
    })),
    nextCursor: rows.length > limit && last ? encodeCursor(last.cursorAt, last.id) : null,
  };
}
