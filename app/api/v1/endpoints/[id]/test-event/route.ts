// POST /api/v1/endpoints/:id/test-event — a synthetic delivery through the endpoint's destinations
import { apiRoute } from "@/lib/http/api-route";
import { sendTestEvent } from "@/lib/ingest/send-test-event";

const ids = { id: { prefix: "ep", what: "Endpoint" } } as const;

export const POST = apiRoute<{ id: string }>(async ({ ctx, params, json }) =>
  Response.json(await sendTestEvent({ ctx, input: { endpointId: params.id, body: await json() } }), { status: 202 }),
  ids,
);
