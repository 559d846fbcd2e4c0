// GET/POST /api/v1/endpoints — list and create endpoints
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { listEndpoints } from "@/lib/endpoints/list-endpoints";
import { apiRoute } from "@/lib/http/api-route";

export const GET = apiRoute(async ({ ctx, query }) =>
  Response.json(await listEndpoints({ ctx, input: { limit: query.get("limit") ?? undefined, cursor: query.get("cursor") } })),
);

export const POST = apiRoute(async ({ ctx, json }) =>
  Response.json(await createEndpoint({ ctx, input: await json() }), { status: 201 }),
);
