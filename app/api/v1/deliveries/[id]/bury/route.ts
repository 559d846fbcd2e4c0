// POST /api/v1/deliveries/:id/bury — move one delivery to dead and cancel its scheduled attempt
import { buryDelivery } from "@/lib/delivery/bury-delivery";
import { apiRoute } from "@/lib/http/api-route";

const ids = { id: { prefix: "dlv", what: "Delivery" } } as const;

export const POST = apiRoute<{ id: string }>(async ({ ctx, params }) =>
  Response.json(await buryDelivery({ ctx, input: { id: params.id } })),
  ids,
);
