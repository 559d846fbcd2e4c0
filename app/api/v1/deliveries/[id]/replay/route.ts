// POST /api/v1/deliveries/:id/replay — put one delivery (every destination's row, or the one named by {destinationId}) back to pending for a replay attempt
import { parseOneDeliveryInput, replayDelivery } from "@/lib/delivery/replay-delivery";
import { apiRoute } from "@/lib/http/api-route";

const ids = { id: { prefix: "dlv", what: "Delivery" } } as const;

export const POST = apiRoute<{ id: string }>(async ({ ctx, params, json }) =>
  Response.json(await replayDelivery({ ctx, input: { id: params.id, ...parseOneDeliveryInput(await json()) } }), { status: 202 }),
  ids,
);
