// An endpoint's destinations changed from the REST API or the dashboard: the lib/destinations verb, then the
// endpoint's cached routing forgotten (ingest routes by it, lib/endpoints/endpoint-cache.ts) and, for an unpause,
// its parked deliveries woken. Here, not in lib/destinations, which neither folder it reaches into may import.
import { closeIncidentsOnDeletion } from "@/lib/alerts/close-incidents-on-deletion";
import { evaluateEndpointAlerts } from "@/lib/alerts/evaluate-endpoint-alerts";
import type { Ctx } from "@/lib/context";
import { resumeEndpointDeliveries } from "@/lib/delivery/resume-endpoint-deliveries";
import { createDestination } from "@/lib/destinations/create-destination";
import { deleteDestination } from "@/lib/destinations/delete-destination";
import { updateDestination } from "@/lib/destinations/update-destination";
import { forgetEndpoint } from "./endpoint-cache";

type Target = { endpointId: string; id: string };

export async function addEndpointDestination({ ctx, input }: { ctx: Ctx; input: { endpointId: string; body: unknown } }) {
  const created = await createDestination({ ctx, input });
  forgetEndpoint(input.endpointId);
  return created;
}

export async function changeEndpointDestination({ ctx, input }: { ctx: Ctx; input: Target & { changes: unknown } }) {
  const updated = await updateDestination({ ctx, input, resume: resumeEndpointDeliveries });
  forgetEndpoint(input.endpointId);
  // A resume ends the breaker's incident at once, with its notification (not at the next check).
  if (!updated.paused && (input.changes as { paused?: unknown } | null)?.paused === false) {
    await evaluateEndpointAlerts({ ctx, input: { endpointId: input.endpointId, now: new Date(), autoPausesOnly: true } });
  }
  return updated;
}

export async function removeEndpointDestination({ ctx, input }: { ctx: Ctx; input: Target }): Promise<void> {
  await deleteDestination({ ctx, input });
  forgetEndpoint(input.endpointId);
  // Its open incidents close, told to their channels, before its row goes with the deliveries' job.
  await closeIncidentsOnDeletion({ ctx, input: { endpointId: input.endpointId, destinationId: input.id } });
}
