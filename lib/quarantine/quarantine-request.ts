// Keeps a request ingest refused for its signature, if the gate lets it (quarantine-gate.ts): sealed,
// in one statement that also trims the endpoint's quarantine to its bounds (quarantine_request(), migration
// 0015). Never throws: the request is refused (401) whatever happens here.
import { getSql } from "@/db";
import { newId } from "@/lib/ids";
import { describeErrorBriefly } from "@/lib/logging/describe-error";
import { storableEventType } from "@/lib/delivery/storable-fields";
import type { RequestIdentity } from "@/lib/signatures/types";
import { quarantineGate } from "./quarantine-gate";
import { sealRequest, type QuarantinedRequestContent } from "./sealed-request";
import { logger } from "@/lib/logging/logger";

export interface RefusedRequest extends QuarantinedRequestContent {
  reason: string;
  sourceIp: string | null;
  /** What the request claims to be (lib/signatures identifyRequest): kept in the clear, cut to what a delivery may hold. */
  claimed?: RequestIdentity;
}

/** Resolves once the request is kept, or known not to be (over a rate, too big, or the write failed). */
export async function quarantineRequest(endpoint: { id: string; organizationId: string }, request: RefusedRequest): Promise<boolean> {
  const gate = quarantineGate();
  const pass = gate.admit(endpoint, request.sourceIp, request.body.length);
  if (!pass) return false;
  try {
    const sealed = sealRequest(request);
    const { maxRequests, maxBytes } = gate.settings;
    if (sealed.length > maxBytes) {
      gate.count(endpoint.id, pass.notKept + 1);
      return false;
    }
    await getSql()`select quarantine_request(${newId("qr")}, ${endpoint.id}, ${endpoint.organizationId}, ${request.reason},
      ${request.sourceIp}, ${request.body.length}, ${sealed}, ${pass.notKept}, ${maxRequests}, ${maxBytes},
      ${storableEventType(request.claimed?.eventType ?? null)}, ${storableEventType(request.claimed?.externalId ?? null)})`;
    return true;
  } catch (error) {
    gate.count(endpoint.id, pass.notKept + 1);
    // The database's message only: the request's content may hold secrets.
    logger.error({ organizationId: endpoint.organizationId, endpointId: endpoint.id }, `[quarantine] could not keep a refused request for endpoint ${endpoint.id}: ${describeErrorBriefly(error)}`);
    return false;
  } finally {
    pass.done();
  }
}
