// POST /api/v1/endpoints/:id/destinations/:destinationId/nack — leased deliveries' attempts failed: retried later
import { apiRoute } from "@/lib/http/api-route";
import { nackLeases } from "@/lib/pull/answer-leases";

type Params = { id: string; destinationId: string };
const ids = { id: { prefix: "ep", what: "Endpoint" }, destinationId: { prefix: "dst", what: "Destination" } } as const;

export const POST = apiRoute<Params>(async ({ ctx, params, json }) =>
  Response.json(await nackLeases({ ctx, input: { endpointId: params.id, destinationId: params.destinationId, body: await json() } })),
  ids,
);
