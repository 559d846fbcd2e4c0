// POST /in/:endpointId, step by step: find the endpoint → its organization's rate (429) → read the raw
// body (bounded: 413; counted against the organization's share of the body budget: 429) → verify the
// signature over those exact bytes → check the event id (400) → store + enqueue in one transaction
// (group commit) → answer. Nothing is stored before verification; the 200 goes out only after the commit.
import { NotFoundError, SignatureError, StoreUnavailableError, TooManyRequestsError, type DomainError } from "@/lib/errors";
import { isId, newId } from "@/lib/ids";
import { verifySignature } from "@/lib/signatures";
import { getIngestEndpoint, type IngestEndpoint } from "./endpoint-cache";
import { ingestLimits } from "./ingest-limits";
import { readBoundedBody } from "@/lib/http/read-bounded-body";
import { recordRejection } from "./record-rejection";
import { storableEventId, storableEventType } from "./storable-fields";

export type IngestOutcome =
  | { kind: "stored"; id: string; duplicate: boolean }
  | { kind: "handshake"; body: unknown };

/**
 * Headers about the hop to us (Next.js adds x-forwarded-* even without a proxy), not about the
 * provider's request: not stored, so destinations do not receive them. The source IP is kept apart.
 */
const TRANSPORT_HEADERS = new Set(["x-forwarded-for", "x-forwarded-host", "x-forwarded-port", "x-forwarded-proto", "x-real-ip", "forwarded"]);

export function sourceIpOf(headers: Headers): string | null {
  return headers.get("x-forwarded-for")?.split(",")[0]?.trim() || headers.get("x-real-ip") || null;
}

/** Takes custody of one webhook, or throws a DomainError that maps to its status code. */
export async function ingestDelivery(request: Request, endpointId: string): Promise<IngestOutcome> {
  // Not one of our ids: not found, without a query (a NUL in it would be a database error) or a cache entry.
  if (!isId("ep", endpointId)) throw new NotFoundError("Endpoint");
  const endpoint = await getIngestEndpoint(endpointId).catch(() => {
    throw new StoreUnavailableError("The endpoint could not be read; nothing was kept. Retry later.");
  });
  if (!endpoint) throw new NotFoundError("Endpoint");
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
    let verified;
    try {
      verified = verifySignature(endpoint.provider, {
        body, headers, secrets: endpoint.secrets, toleranceSeconds: endpoint.toleranceSeconds, now: new Date(), genericHmac: endpoint.genericHmac,
      });
    } catch (error) {
      if (error instanceof SignatureError) refused(endpoint, request, headers, error);
      throw error;
    }
    if (verified.handshakeResponse !== undefined) return { kind: "handshake", body: verified.handshakeResponse };
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
      externalId,
      eventType: storableEventType(verified.eventType),
      headers,
      body,
      sourceIp: sourceIpOf(request.headers),
    });
    if (!result) throw new NotFoundError("Endpoint");
    return { kind: "stored", ...result };
  } finally {
    hold.release();
  }
}

/** Logs a refused request for the endpoint's dashboard (bounded; no values). */
function refused(endpoint: IngestEndpoint, request: Request, headers: Record<string, string>, error: DomainError): void {
  recordRejection(endpoint, { reason: error.code, message: error.message, sourceIp: sourceIpOf(request.headers), headerNames: Object.keys(headers) });
}
