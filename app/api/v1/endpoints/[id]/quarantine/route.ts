// GET /api/v1/endpoints/:id/quarantine — requests refused for their signature, kept for a re-verify
import { apiRoute } from "@/lib/http/api-route";
import { listQuarantinedRequests } from "@/lib/quarantine/list-quarantined-requests";

const ids = { id: { prefix: "ep", what: "Endpoint" } } as const;

export const GET = apiRoute<{ id: string }>(async ({ ctx, params, query }) =>
  Response.json(await listQuarantinedRequests({ ctx, input: { endpointId: params.id, limit: query.get("limit") ?? undefined, cursor: query.get("cursor") } })),
  ids,
);
