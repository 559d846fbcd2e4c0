// GET/POST /api/v1/endpoints/:id/destinations — list and add an endpoint's destinations
import { listDestinations } from "@/lib/destinations/list-destinations";
import { addEndpointDestination } from "@/lib/endpoints/endpoint-destinations";
import { apiRoute } from "@/lib/http/api-route";

const ids = { id: { prefix: "ep", what: "Endpoint" } } as const;

export const GET = apiRoute<{ id: string }>(async ({ ctx, params, query }) =>
  Response.json(await listDestinations({ ctx, input: { endpointId: params.id, limit: query.get("limit") ?? undefined, cursor: query.get("cursor") } })),
  ids,
);

export const POST = apiRoute<{ id: string }>(async ({ ctx, params, json }) =>
  Response.json(await addEndpointDestination({ ctx, input: { endpointId: params.id, body: await json() } }), { status: 201 }),
  ids,
);
