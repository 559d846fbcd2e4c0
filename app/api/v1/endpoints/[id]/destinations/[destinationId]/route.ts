// GET/PATCH/DELETE /api/v1/endpoints/:id/destinations/:destinationId — read, change, delete one destination
import { getDestinationRowOrThrow } from "@/lib/destinations/get-destination-or-throw";
import { presentDestination } from "@/lib/destinations/present-destination";
import { changeEndpointDestination, removeEndpointDestination } from "@/lib/endpoints/endpoint-destinations";
import { apiRoute } from "@/lib/http/api-route";

type Params = { id: string; destinationId: string };
const ids = { id: { prefix: "ep", what: "Endpoint" }, destinationId: { prefix: "dst", what: "Destination" } } as const;
const target = (params: Params) => ({ endpointId: params.id, id: params.destinationId });

export const GET = apiRoute<Params>(async ({ ctx, params }) =>
  Response.json(presentDestination(await getDestinationRowOrThrow({ ctx, input: target(params) }))),
  ids,
);

export const PATCH = apiRoute<Params>(async ({ ctx, params, json }) =>
  Response.json(await changeEndpointDestination({ ctx, input: { ...target(params), changes: await json() } })),
  ids,
);

export const DELETE = apiRoute<Params>(async ({ ctx, params }) => {
  await removeEndpointDestination({ ctx, input: target(params) });
  return new Response(null, { status: 204 });
}, ids);
