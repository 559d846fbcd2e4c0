// POST /api/v1/deliveries/bury — bury every delivery a filter names (?dryRun=true only counts)
import { buryDeliveries } from "@/lib/delivery/bury-deliveries";
import { apiRoute } from "@/lib/http/api-route";
import { dryRunParam } from "@/lib/http/dry-run";

export const POST = apiRoute(async ({ ctx, query, json }) =>
  Response.json(await buryDeliveries({ ctx, input: { filter: await json(), dryRun: dryRunParam(query) } })),
);
