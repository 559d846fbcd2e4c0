// GET /api/v1/deliveries/:id — one delivery with headers, body and attempts
import { getDelivery } from "@/lib/delivery/get-delivery";
import { apiRoute } from "@/lib/http/api-route";

const ids = { id: { prefix: "dlv", what: "Delivery" } } as const;

export const GET = apiRoute<{ id: string }>(async ({ ctx, params }) => Response.json(await getDelivery({ ctx, input: params })), ids);
