// GET/POST /api/v1/endpoints/:id/destinations — list and add an endpoint's destinations
import { createDestination } from "@/lib/destinations/create-destination";
import { listDestinations } from "@/lib/destinations/list-destinations";
import { forgetEndpoint } from "@/lib/endpoints/endpoint-cache";
import { apiRoute } from "@/lib/http/api-route";

const ids = { id: { prefix: "ep", what: "Endpoint" } } as const;

export const GET = apiRoute<{ id: string }>(async ({ ctx, params, query }) =>
  Response.json(await listDestinations({ ctx, input: { endpointId: params.id, limit: query.get("limit") ?? undefined, cursor: query.get("cursor") } })),
  ids,
);

export const POST = apiRoute<{ id: string }>(async ({ ctx, params, json }) => {
  const created = await createDestination({ ctx, input: { endpointId: params.id, body: await json() } });
  forgetEndpoint(params.id); // ingest routes by the endpoint's cached destinations
  return Response.json(created, { status: 201 });
}, ids);
