// Teams (issue #15): invitations to join an organization, and the audit log of every change.
// Part of the one schema (db/schema.ts re-exports it).
import { sql } from "drizzle-orm";
import { check, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns";
import { apiKeys, organizations, users } from "./tenants";


/** An owner's invitation by email; the link carries a token of which only the sha256 is kept. */
export const invitations = pgTable(
  "invitations",
  {
    id: text().primaryKey(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    email: text().notNull(),
    role: text({ enum: ["owner", "admin", "viewer"] }).notNull(),
    tokenHash: text().notNull().unique(),
    /** Who sent it: a member, or an API key (then its creator may be null). Losing the right to invite withdraws it. */
    invitedByUserId: text().references(() => users.id, { onDelete: "set null" }),
    invitedByApiKeyId: text().references(() => apiKeys.id, { onDelete: "set null" }),
    createdAt: tstz().notNull().defaultNow(),
    expiresAt: tstz().notNull(),
    acceptedAt: tstz(),
    acceptedByUserId: text().references(() => users.id, { onDelete: "set null" }),
    withdrawnAt: tstz(),
  },
  (t) => [index().on(t.organizationId, t.createdAt)],
);

/**
 * Who changed what, written in the transaction that makes the change (lib/audit/record-audit.ts).
 * A trigger (migration 0017) refuses every UPDATE, and every DELETE but of entries past 365 days or
 * of an organization being deleted.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: text().primaryKey(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    at: tstz().notNull().defaultNow(),
    action: text().notNull(),
    actorType: text({ enum: ["user", "api_key", "system"] }).notNull(),
    actorId: text(),
    /** The user's email or the key's name when the entry was written: it outlives the actor. */
    actorLabel: text(),
    targetType: text().notNull(),
    targetId: text().notNull(),
    details: jsonb().$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    ip: text(),
  },
  (t) => [
    index("audit_log_org_at_idx").on(t.organizationId, t.at.desc(), t.id.desc()),
    index("audit_log_org_action_at_idx").on(t.organizationId, t.action, t.at.desc(), t.id.desc()),
    check("audit_log_actor_type", sql`${t.actorType} in ('user', 'api_key', 'system')`),
  ],
);
