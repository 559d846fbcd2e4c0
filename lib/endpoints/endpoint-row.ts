// An endpoint as its readers see it: its own row, plus the fields of the endpoint object that its default
// destination holds (API.md "Destinations": destinationUrl, paused, maxAttempts, retryBaseSeconds, timeoutMs and
// the outbound secret read and write the default destination), so clients that know nothing of destinations
// see the endpoint they always saw.
import { getTableColumns } from "drizzle-orm";
import { destinations, endpoints } from "@/db/schema";

/** The default destination's columns under the names the endpoint's fields had. */
const defaultDestinationColumns = {
  destinationUrl: destinations.url,
  paused: destinations.paused,
  maxAttempts: destinations.maxAttempts,
  retryBaseSeconds: destinations.retryBaseSeconds,
  timeoutMs: destinations.timeoutMs,
  outboundSecretEncrypted: destinations.outboundSecretEncrypted,
  autoPauseFailures: destinations.autoPauseFailures,
  autoPauseMinutes: destinations.autoPauseMinutes,
  deadThreshold: destinations.deadThreshold,
  deadWindowMinutes: destinations.deadWindowMinutes,
};

/** Select these from `endpoints` joined with `joinDefaultDestination` (lib/destinations/default-destination.ts). */
export const endpointRowColumns = { ...getTableColumns(endpoints), ...defaultDestinationColumns };

export type DefaultDestinationFields = {
  destinationUrl: string | null;
  paused: boolean;
  maxAttempts: number;
  retryBaseSeconds: number;
  timeoutMs: number;
  outboundSecretEncrypted: string | null;
  autoPauseFailures: number | null;
  autoPauseMinutes: number | null;
  deadThreshold: number | null;
  deadWindowMinutes: number | null;
};

export type EndpointRow = typeof endpoints.$inferSelect & DefaultDestinationFields;

/** The default destination's row fields back under their endpoint names. */
export function defaultDestinationFields(row: typeof destinations.$inferSelect): DefaultDestinationFields {
  return {
    destinationUrl: row.url,
    paused: row.paused,
    maxAttempts: row.maxAttempts,
    retryBaseSeconds: row.retryBaseSeconds,
    timeoutMs: row.timeoutMs,
    outboundSecretEncrypted: row.outboundSecretEncrypted,
    autoPauseFailures: row.autoPauseFailures,
    autoPauseMinutes: row.autoPauseMinutes,
    deadThreshold: row.deadThreshold,
    deadWindowMinutes: row.deadWindowMinutes,
  };
}
