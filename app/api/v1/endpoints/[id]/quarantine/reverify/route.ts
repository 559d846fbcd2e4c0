// POST /api/v1/endpoints/:id/quarantine/reverify — admit what verifies now (?dryRun=true only counts)
import { apiRoute } from "@/lib/http/api-route";
import { dryRunParam } from "@/lib/http/dry-run";
import { reverifyQuarantined } from "@/lib/quarantine/reverify-quarantined";

const ids = { id: { prefix: "ep", what: "Endpoint" } } as const;

export const POST = apiRoute<{ id: string }>(async ({ ctx, params, query }) =>
  Response.json(await reverifyQuarantined({ ctx, input: { endpointId: params.id, dryRun: dryRunParam(query) } })),
  ids,
);
