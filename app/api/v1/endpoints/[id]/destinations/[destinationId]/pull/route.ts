// POST /api/v1/endpoints/:id/destinations/:destinationId/pull — lease a pull destination's ready deliveries
import { apiRoute } from "@/lib/http/api-route";
import { pullDeliveries } from "@/lib/pull/pull-deliveries";

type Params = { id: string; destinationId: string };
const ids = { id: { prefix: "ep", what: "Endpoint" }, destinationId: { prefix: "dst", what: "Destination" } } as const;

export const POST = apiRoute<Params>(async ({ ctx, params, json, request }) =>
  Response.json(await pullDeliveries({ ctx, input: { endpointId: params.id, destinationId: params.destinationId, body: await json() }, signal: request.signal })),
  ids,
);
