// GET/PATCH/DELETE /api/v1/endpoints/:id — read, change, delete one endpoint
import { deleteEndpoint } from "@/lib/endpoints/delete-endpoint";
import { getEndpoint } from "@/lib/endpoints/get-endpoint";
import { updateEndpoint } from "@/lib/endpoints/update-endpoint";
import { apiRoute } from "@/lib/http/api-route";

export const GET = apiRoute<{ id: string }>(async ({ ctx, params }) => Response.json(await getEndpoint({ ctx, input: params })));

export const PATCH = apiRoute<{ id: string }>(async ({ ctx, params, json }) =>
  Response.json(await updateEndpoint({ ctx, input: { id: params.id, changes: await json() } })),
);

export const DELETE = apiRoute<{ id: string }>(async ({ ctx, params }) => {
  await deleteEndpoint({ ctx, input: params });
  return new Response(null, { status: 204 });
});
