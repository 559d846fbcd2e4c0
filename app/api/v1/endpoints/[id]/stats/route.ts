// GET /api/v1/endpoints/:id/stats — counts by status and the oldest pending age
import { getEndpointStats } from "@/lib/endpoints/get-endpoint-stats";
import { apiRoute } from "@/lib/http/api-route";

const ids = { id: { prefix: "ep", what: "Endpoint" } } as const;

export const GET = apiRoute<{ id: string }>(async ({ ctx, params }) => Response.json(await getEndpointStats({ ctx, input: params })), ids);
