// Destination ids. An endpoint's default destination has an id derived from the endpoint's (`ep_<digits>` →
// `dst_<digits>`): migration 0036 gave every existing delivery, slot and parked row its destination by that
// rewrite alone, and a job queued before it (naming only its endpoint) finds its delivery's destination the same way.
import { newId } from "@/lib/ids";

const ENDPOINT_PREFIX = "ep_";

export function defaultDestinationId(endpointId: string): string {
  if (!endpointId.startsWith(ENDPOINT_PREFIX)) throw new Error(`not an endpoint id: ${endpointId}`);
  return `dst_${endpointId.slice(ENDPOINT_PREFIX.length)}`;
}

/** The id of a destination added to an endpoint beside its default one. */
export function newDestinationId(): string {
  return newId("dst");
}
