// Endpoints (an ingest URL and its provider's secret; where it hands what it stores: destinations.ts) and the requests refused at them.
// Part of the one schema (db/schema.ts re-exports it).
import { bigserial, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import type { GenericHmacConfig } from "@/lib/signatures/types";
import { tstz } from "./columns";
import { organizations } from "./tenants";

export const endpoints = pgTable(
  "endpoints",
  {
    id: text().primaryKey(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    provider: text().notNull(),
    /** Encrypted at rest (lib/crypto/secret-box.ts). */
    secretEncrypted: text(),
    previousSecretEncrypted: text(),
    previousSecretValidUntil: tstz(),
    genericHmac: jsonb().$type<GenericHmacConfig>(),
    maxBodyBytes: integer().notNull().default(1_048_576),
    toleranceSeconds: integer().notNull().default(300),
    alertPendingAgeSeconds: integer(),
    alertEmail: text(),
    /** Alert channels (alert_channels ids) its incidents are told on; null: mail, as alertEmail says (lib/alerts). */
    alertChannelIds: text().array(),
    createdAt: tstz().notNull().defaultNow(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [index().on(t.organizationId, t.createdAt)],
);

/** Requests refused at ingest, kept (bounded per endpoint) so a tenant can see why a sender fails. */
export const rejectedRequests = pgTable(
  "rejected_requests",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    endpointId: text().notNull().references(() => endpoints.id, { onDelete: "cascade" }),
    at: tstz().notNull().defaultNow(),
    reason: text().notNull(),
    message: text().notNull(),
    sourceIp: text(),
    headerNames: text().array().notNull(),
  },
  (t) => [index().on(t.endpointId, t.at.desc())],
);
