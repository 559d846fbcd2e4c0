// POST /in/:endpointId, step by step: find the endpoint → its organization's rate (429) → read the raw
// body (bounded: 413; counted against the organization's share of the body budget: 429) → verify the
// signature over those exact bytes (401; kept in the endpoint's quarantine, lib/quarantine) → check the event id (400)
// → match its destinations' filters (lib/destinations/route-request.ts) → store + enqueue in one transaction
// (group commit) → answer. Nothing is stored before verification; the 200 goes out only after the commit.
import { ingestUrl } from "@/lib/endpoints/present-endpoint";
import { NotFoundError, SignatureError, TooManyRequestsError, type DomainError } from "@/lib/errors";
import { filterInputOf, lanesFor } from "@/lib/destinations/route-request";
import { newId } from "@/lib/ids";
import { identifyRequest, verifySignature } from "@/lib/signatures";
import type { HandshakeAnswer } from "@/lib/signatures/types";
import { requireIngestEndpoint, type IngestEndpoint } from "@/lib/endpoints/endpoint-cache";
import { ingestLimits } from "./ingest-limits";
import { clientAddress } from "@/lib/http/client-address";
import { readBoundedBody } from "@/lib/http/read-bounded-body";
import { quarantineRequest } from "@/lib/quarantine/quarantine-request";
import { recordRejection } from "./record-rejection";
import { storableEventId, storableEventType } from "@/lib/delivery/storable-fields";

export type IngestOutcome =
  | { kind: "stored"; id: string; duplicate: boolean }
  | { kind: "handshake"; answer: HandshakeAnswer };

/**
 * Headers about the hop to us (Next.js adds x-forwarded-* even without a proxy), not about the
 * provider's request: not stored, so destinations do not receive them. The source IP is kept apart
 * (lib/http/client-address.ts: only TRUSTED_PROXIES may name the client).
 */
const TRANSPORT_HEADERS = new Set(["x-forwarded-for", "x-forwarded-host", "x-forwarded-port", "x-forwarded-proto", "x-real-ip", "forwarded"]);

/** Takes custody of one webhook, or throws a DomainError that maps to its status code. */
export async function ingestDelivery(request: Request, endpointId: string): Promise<IngestOutcome> {
  const endpoint = await requireIngestEndpoint(endpointId);
  const { committer, budget, rateLimiter, refusalPacer } = ingestLimits();
  // Before the body is read, and answered after a pause: a flood over its rate costs us as little as possible.
  const wait = rateLimiter.take(endpoint.organizationId);
  if (wait > 0) {
    await refusalPacer.pause(endpoint.organizationId);
    throw new TooManyRequestsError("rate_limited", "Your organization is over its ingest rate; nothing was kept. Retry after the time in Retry-After.", wait);
  }
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (!TRANSPORT_HEADERS.has(name)) headers[name] = value;
  });
  const hold = budget.hold(endpoint.organizationId);
  try {
    const body = await readBoundedBody(request, Math.min(endpoint.maxBodyBytes, budget.largestBody), hold.add);
    // A big body counts as several requests against the organization's rate, whatever becomes of it.
    rateLimiter.chargeBody(endpoint.organizationId, body.length);
    let verified;
    try {
      verified = verifySignature(endpoint.provider, {
        body, headers, url: providerUrl(request, endpoint.id), method: request.method, secrets: endpoint.secrets,
        toleranceSeconds: endpoint.toleranceSeconds, now: new Date(), genericHmac: endpoint.genericHmac,
      });
    } catch (error) {
      if (error instanceof SignatureError) {
        refused(endpoint, request, headers, error);
        // Kept (within the quarantine's bounds and rates) so a secret set later can still admit it;
        // awaited so that a 401 means it is in the quarantine, or was only counted.
        await quarantineRequest(endpoint, {
          reason: error.code, sourceIp: clientAddress(request.headers), method: request.method, url: providerUrl(request, endpoint.id), headers, body,
          claimed: identifyRequest(endpoint.provider, { headers, body }),
        });
      }
      throw error;
    }
    if (verified.handshake !== undefined) return { kind: "handshake", answer: verified.handshake };
    const id = newId("dlv");
    let externalId = id; // without a provider event id every request is its own delivery
    try {
      if (verified.externalId !== null) externalId = storableEventId(verified.externalId);
    } catch (error) {
      refused(endpoint, request, headers, error as DomainError);
      throw error;
    }
    const result = await committer.store({
      id,
      organizationId: endpoint.organizationId,
      endpointId: endpoint.id,
      lanes: lanesFor({ id, endpointId: endpoint.id, externalId }, endpoint.destinations, () => filterInputOf({ headers, body, url: request.url })),
      externalId,
      eventType: storableEventType(verified.eventType),
      headers,
      body,
      sourceIp: clientAddress(request.headers),
    });
    if (!result) throw new NotFoundError("Endpoint");
    return { kind: "stored", ...result };
  } finally {
    hold.release();
  }
}

/**
 * The URL the provider sent to, as it saw it (Twilio, Square and HubSpot sign it): behind a proxy or
 * Next.js our own request URL names another host, so it is the ingest URL from APP_URL plus the
 * query string exactly as received.
 */
function providerUrl(request: Request, endpointId: string): string {
  const query = request.url.indexOf("?");
  return ingestUrl(endpointId) + (query < 0 ? "" : request.url.slice(query));
}

/** Logs a refused request for the endpoint's dashboard (bounded; no values). */
function refused(endpoint: IngestEndpoint, request: Request, headers: Record<string, string>, error: DomainError): void {
  recordRejection(endpoint, { reason: error.code, message: error.message, sourceIp: clientAddress(request.headers), headerNames: Object.keys(headers) });
}
