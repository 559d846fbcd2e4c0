// GET /api/v1/endpoints/:id/destinations/:destinationId/stats — one destination's counts by status and oldest pending age
import { getDestinationStats } from "@/lib/destinations/get-destination-stats";
import { apiRoute } from "@/lib/http/api-route";

type Params = { id: string; destinationId: string };
const ids = { id: { prefix: "ep", what: "Endpoint" }, destinationId: { prefix: "dst", what: "Destination" } } as const;

export const GET = apiRoute<Params>(async ({ ctx, params }) =>
  Response.json(await getDestinationStats({ ctx, input: { endpointId: params.id, id: params.destinationId } })),
  ids,
);
