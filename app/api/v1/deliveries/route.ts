// GET /api/v1/deliveries — newest first, filtered, cursor-paginated
import { deliveryFilterFromQuery } from "@/lib/delivery/delivery-filter";
import { listDeliveries } from "@/lib/delivery/list-deliveries";
import { apiRoute } from "@/lib/http/api-route";

export const GET = apiRoute(async ({ ctx, query }) =>
  Response.json(
    await listDeliveries({ ctx, input: { ...deliveryFilterFromQuery(query), limit: query.get("limit") ?? undefined, cursor: query.get("cursor") } }),
  ),
);
