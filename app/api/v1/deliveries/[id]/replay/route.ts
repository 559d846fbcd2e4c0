// POST /api/v1/deliveries/:id/replay — put one delivery back to pending for a replay attempt
import { replayDelivery } from "@/lib/delivery/replay-delivery";
import { apiRoute } from "@/lib/http/api-route";

const ids = { id: { prefix: "dlv", what: "Delivery" } } as const;

export const POST = apiRoute<{ id: string }>(async ({ ctx, params }) =>
  Response.json(await replayDelivery({ ctx, input: { id: params.id } }), { status: 202 }),
  ids,
);
