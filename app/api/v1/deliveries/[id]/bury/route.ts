// POST /api/v1/deliveries/:id/bury — move one delivery (every destination's row, or the one named by {destinationId}) to dead and cancel its scheduled attempts
import { buryDelivery } from "@/lib/delivery/bury-delivery";
import { parseOneDeliveryInput } from "@/lib/delivery/replay-delivery";
import { apiRoute } from "@/lib/http/api-route";

const ids = { id: { prefix: "dlv", what: "Delivery" } } as const;

export const POST = apiRoute<{ id: string }>(async ({ ctx, params, json }) =>
  Response.json(await buryDelivery({ ctx, input: { id: params.id, ...parseOneDeliveryInput(await json()) } })),
  ids,
);
