// The quarantine (issue #16 point 3): requests refused for their signature on an existing endpoint,
// kept sealed (lib/crypto/secret-box.ts) so a later secret can admit them. Part of the one schema
// (db/schema.ts re-exports it). Bounded per endpoint by lib/quarantine/quarantine-request.ts.
import { bigint, customType, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns";
import { endpoints } from "./endpoints";
import { organizations } from "./tenants";

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

/**
 * One row per endpoint that ever quarantined: where its stream of kept requests stands. Every kept
 * request updates it first, so its row lock puts an endpoint's quarantine writes in one line and the
 * trim after it sees every row written before (the bounds hold under concurrency).
 */
export const quarantineHeads = pgTable("quarantine_heads", {
  endpointId: text().primaryKey().references(() => endpoints.id, { onDelete: "cascade" }),
  organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
  /** seq of the newest kept request. */
  lastSeq: bigint({ mode: "number" }).notNull().default(0),
  /** Sealed bytes ever kept: the end of the newest row in the endpoint's stream. */
  streamBytes: bigint({ mode: "number" }).notNull().default(0),
  /** Refused requests that were counted but not kept (over the per-source or per-endpoint rate). */
  notKept: bigint({ mode: "number" }).notNull().default(0),
});

export const quarantinedRequests = pgTable(
  "quarantined_requests",
  {
    endpointId: text().notNull().references(() => endpoints.id, { onDelete: "cascade" }),
    /** 1, 2, 3… per endpoint, in the order kept (quarantine_heads.last_seq). */
    seq: bigint({ mode: "number" }).notNull(),
    /** Public id (qr_…), for the API and the dashboard. */
    id: text().notNull(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    /** When the request reached us (database clock): a re-verify checks its timestamp against this. */
    receivedAt: tstz().notNull().defaultNow(),
    /** Why ingest refused it (invalid_signature, missing_signature, timestamp_out_of_tolerance). */
    reason: text().notNull(),
    sourceIp: text(),
    /** Size of the body as received. */
    sizeBytes: integer().notNull(),
    /** The event type and external id the request claims, read without the secret (lib/signatures identifyRequest): shown, never trusted. */
    eventType: text(),
    externalId: text(),
    /** Where this row's sealed bytes start in the endpoint's stream (quarantine_heads.stream_bytes). */
    streamOffset: bigint({ mode: "number" }).notNull(),
    /** Method, provider URL, headers and body, sealed with AES-256-GCM (lib/quarantine/sealed-request.ts). */
    sealed: bytea().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.endpointId, t.seq] }),
    // The expiry sweep: an organization's oldest (lib/retention/delete-expired-quarantined-requests.ts).
    index().on(t.organizationId, t.receivedAt),
  ],
);
