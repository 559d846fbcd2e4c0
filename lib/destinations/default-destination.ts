// An endpoint's default destination, as a join condition: every endpoint has exactly one
// (destinations_one_default_idx), and it holds the endpoint's destinationUrl, paused, maxAttempts,
// retryBaseSeconds, timeoutMs and outbound secret (API.md "Destinations").
import { and, eq } from "drizzle-orm";
import { destinations, endpoints } from "@/db/schema";

/** `destinations.endpoint_id = endpoints.id and destinations.is_default`, within the endpoint's organization. */
export const joinDefaultDestination = and(
  eq(destinations.endpointId, endpoints.id),
  eq(destinations.organizationId, endpoints.organizationId),
  eq(destinations.isDefault, true),
);
