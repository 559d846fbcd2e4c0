// GET/PATCH/DELETE /api/v1/endpoints/:id/destinations/:destinationId — read, change, delete one destination
import { resumeEndpointDeliveries } from "@/lib/delivery/resume-endpoint-deliveries";
import { deleteDestination } from "@/lib/destinations/delete-destination";
import { getDestinationRowOrThrow } from "@/lib/destinations/get-destination-or-throw";
import { presentDestination } from "@/lib/destinations/present-destination";
import { updateDestination } from "@/lib/destinations/update-destination";
import { forgetEndpoint } from "@/lib/endpoints/endpoint-cache";
import { apiRoute } from "@/lib/http/api-route";

type Params = { id: string; destinationId: string };
const ids = { id: { prefix: "ep", what: "Endpoint" }, destinationId: { prefix: "dst", what: "Destination" } } as const;
const target = (params: Params) => ({ endpointId: params.id, id: params.destinationId });

export const GET = apiRoute<Params>(async ({ ctx, params }) =>
  Response.json(presentDestination(await getDestinationRowOrThrow({ ctx, input: target(params) }))),
  ids,
);

// After each change, the endpoint's cached destinations are forgotten: ingest routes by them.
export const PATCH = apiRoute<Params>(async ({ ctx, params, json }) => {
  const updated = await updateDestination({ ctx, input: { ...target(params), changes: await json() }, resume: resumeEndpointDeliveries });
  forgetEndpoint(params.id);
  return Response.json(updated);
}, ids);

export const DELETE = apiRoute<Params>(async ({ ctx, params }) => {
  await deleteDestination({ ctx, input: target(params) });
  forgetEndpoint(params.id);
  return new Response(null, { status: 204 });
}, ids);
