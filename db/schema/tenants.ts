// Who uses the product: people, their organizations, memberships and API keys. Every other table hangs
// off an organization. Part of the one schema (db/schema.ts re-exports it).
import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, primaryKey, smallint, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns";

export const users = pgTable("users", {
  id: text().primaryKey(),
  email: text().notNull().unique(),
  name: text(),
  passwordHash: text().notNull(),
  createdAt: tstz().notNull().defaultNow(),
});

export const organizations = pgTable(
  "organizations",
  {
    id: text().primaryKey(),
    name: text().notNull(),
    /** Settled deliveries last changed longer ago than this are removed (API.md, lib/retention). */
    retentionDays: integer().notNull().default(30),
    /**
     * Every delivery of the organization has an id at or above this ('' while not known): its queries name it,
     * so that they plan and read only the partitions from its oldest delivery's week on, not the weeks another
     * organization keeps (lib/storage/delivery-id-floor.ts).
     */
    deliveryIdFloor: text().notNull().default(""),
    createdAt: tstz().notNull().defaultNow(),
    /**
     * Set when an owner deletes it (lib/organizations/delete-organization.ts): nobody can use it from
     * then on, and jobs/delete-organization.ts removes its data in the background, the row last.
     */
    deletedAt: tstz(),
    /** The daily digest's hour (UTC, 0–23); null: no digest (lib/digest). */
    digestHourUtc: smallint(),
    /** Who gets the digest: members' addresses; null: the organization's owners. */
    digestRecipients: text().array(),
  },
  (t) => [
    check("organizations_retention_days_range", sql`${t.retentionDays} between 1 and 365`),
    check("organizations_digest_hour_utc_range", sql`${t.digestHourUtc} between 0 and 23`),
    // The digest's check each minute: the organizations that asked for one.
    index().on(t.digestHourUtc).where(sql`${t.digestHourUtc} is not null`),
  ],
);

export const memberships = pgTable(
  "memberships",
  {
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    userId: text().notNull().references(() => users.id, { onDelete: "cascade" }),
    /** lib/access/roles.ts says what each role may do. */
    role: text({ enum: ["owner", "admin", "viewer"] }).notNull(),
    createdAt: tstz().notNull().defaultNow(),
    /** When the member last signed in to or switched to this organization: sign-in picks the latest. */
    lastUsedAt: tstz(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.userId] }), index().on(t.userId)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text().primaryKey(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** The first characters of the key, shown in lists so a person can tell keys apart. */
    prefix: text().notNull(),
    /** sha256 of the whole key; keys are 256-bit random, so a fast hash is enough. */
    keyHash: text().notNull().unique(),
    /** What the key may do (lib/access/roles.ts); keys made before roles existed are owner keys. */
    role: text({ enum: ["owner", "admin", "viewer"] }).notNull().default("admin"),
    /**
     * The member on whose authority it was made: who created it in the dashboard, or, for a key made with
     * another key, that key's member. Null for the CLI's keys and after the user is gone. Removing the member
     * revokes their keys, and demoting them revokes those above the new role (lib/api-keys/revoke-member-keys.ts).
     */
    createdByUserId: text().references(() => users.id, { onDelete: "set null" }),
    createdAt: tstz().notNull().defaultNow(),
    lastUsedAt: tstz(),
    revokedAt: tstz(),
  },
  (t) => [index().on(t.organizationId)],
);
