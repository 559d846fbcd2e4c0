// The pull destination a pull, ack or nack names: ctx's organization's, of that endpoint, not deleted (else 404),
// and of type pull (an http destination is pushed to: 409 conflict).
import type { Ctx } from "@/lib/context";
import { getDestinationRowOrThrow } from "@/lib/destinations/get-destination-or-throw";
import type { DestinationRow } from "@/lib/destinations/present-destination";
import { ConflictError } from "@/lib/errors";

export async function pullDestinationOrThrow(ctx: Ctx, input: { endpointId: string; destinationId: string }): Promise<DestinationRow> {
  const row = await getDestinationRowOrThrow({ ctx, input: { endpointId: input.endpointId, id: input.destinationId } });
  if (row.type !== "pull") throw new ConflictError("This destination is an http one: its deliveries are pushed to its url, not pulled.");
  return row;
}
