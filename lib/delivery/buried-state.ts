import { sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { deliveries } from "@/db/schema";

/** The columns a bury sets: dead, nothing scheduled, not parked; the last error says why. */
export function buriedState(): PgUpdateSetSource<typeof deliveries> {
  return {
    status: "dead",
    nextAttemptAt: null,
    parkedAt: null,
    lastError: sql`'buried on request' || coalesce('; last error: ' || last_error, '')`,
    updatedAt: sql`now()`,
  };
}
