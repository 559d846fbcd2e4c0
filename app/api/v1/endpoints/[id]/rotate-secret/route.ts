// POST /api/v1/endpoints/:id/rotate-secret — new secret now, previous one valid for a grace period
import { rotateEndpointSecret } from "@/lib/endpoints/rotate-endpoint-secret";
import { apiRoute } from "@/lib/http/api-route";

const ids = { id: { prefix: "ep", what: "Endpoint" } } as const;

export const POST = apiRoute<{ id: string }>(async ({ ctx, params, json }) =>
  Response.json(await rotateEndpointSecret({ ctx, input: { id: params.id, body: await json() } })),
  ids,
);
