// GET/PATCH/DELETE /api/v1/endpoints/:id — read, change, delete one endpoint
import { deleteEndpoint } from "@/lib/endpoints/delete-endpoint";
import { getEndpoint } from "@/lib/endpoints/get-endpoint";
import { updateEndpoint } from "@/lib/endpoints/update-endpoint";
import { apiRoute } from "@/lib/http/api-route";

const ids = { id: { prefix: "ep", what: "Endpoint" } } as const;

export const GET = apiRoute<{ id: string }>(async ({ ctx, params }) => Response.json(await getEndpoint({ ctx, input: params })), ids);

export const PATCH = apiRoute<{ id: string }>(async ({ ctx, params, json }) =>
  Response.json(await updateEndpoint({ ctx, input: { id: params.id, changes: await json() } })),
  ids,
);

export const DELETE = apiRoute<{ id: string }>(async ({ ctx, params }) => {
  await deleteEndpoint({ ctx, input: params });
  return new Response(null, { status: 204 });
}, ids);
