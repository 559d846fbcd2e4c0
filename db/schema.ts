// The one schema, a file per part. Tables plural, columns snake_case (drizzle casing), ids prefixed text.
// Every tenant table carries a NOT NULL organization_id.
export * from "./schema/tenants";
export * from "./schema/endpoints";
export * from "./schema/destinations";
export * from "./schema/workers";
export * from "./schema/alerts";
export * from "./schema/auth";
export * from "./schema/deliveries";
export * from "./schema/counters";
export * from "./schema/quarantine";
export * from "./schema/teams";
export * from "./schema/digests";
