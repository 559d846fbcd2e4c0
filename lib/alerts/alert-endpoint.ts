import type { endpoints } from "@/db/schema";

/**
 * What alert evaluation and alert mail need to know about an endpoint; `paused` is its default destination's
 * (API.md "Destinations").
 */
export type AlertEndpoint = Pick<typeof endpoints.$inferSelect, "id" | "name" | "alertPendingAgeSeconds" | "alertEmail"> & { paused: boolean };
