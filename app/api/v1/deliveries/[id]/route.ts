// GET /api/v1/deliveries/:id — one delivery with headers, body and attempts
import { getDelivery } from "@/lib/delivery/get-delivery";
import { apiRoute } from "@/lib/http/api-route";

export const GET = apiRoute<{ id: string }>(async ({ ctx, params }) => Response.json(await getDelivery({ ctx, input: params })));
