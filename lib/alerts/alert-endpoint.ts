import type { endpoints } from "@/db/schema";

/** What alert evaluation and alert mail need to know about an endpoint. */
export type AlertEndpoint = Pick<typeof endpoints.$inferSelect, "id" | "name" | "paused" | "alertPendingAgeSeconds" | "alertEmail">;
