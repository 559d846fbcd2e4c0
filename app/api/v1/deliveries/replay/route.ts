// POST /api/v1/deliveries/replay — replay every delivery a filter names (?dryRun=true only counts)
import { replayDeliveries } from "@/lib/delivery/replay-deliveries";
import { apiRoute } from "@/lib/http/api-route";
import { dryRunParam } from "@/lib/http/dry-run";

export const POST = apiRoute(async ({ ctx, query, json }) => {
  const dryRun = dryRunParam(query);
  const result = await replayDeliveries({ ctx, input: { filter: await json(), dryRun } });
  return Response.json(result, { status: dryRun ? 200 : 202 });
});
