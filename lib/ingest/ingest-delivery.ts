// POST /in/:endpointId, step by step: find the endpoint → read the raw body (bounded) → verify the
// signature over those exact bytes → store + enqueue in one transaction (group commit) → answer.
// Nothing is stored before verification; the 200 goes out only after the commit.
import { getIngestSql } from "@/db";
import { positiveIntegerEnv } from "@/lib/env-number";
import { NotFoundError, SignatureError, StoreUnavailableError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { verifySignature } from "@/lib/signatures";
import { getIngestEndpoint } from "./endpoint-cache";
import { GroupCommitter } from "./group-commit";
import { readBoundedBody } from "./read-bounded-body";
import { recordRejection } from "./record-rejection";

export type IngestOutcome =
  | { kind: "stored"; id: string; duplicate: boolean }
  | { kind: "handshake"; body: unknown };

const holder = globalThis as unknown as { __inboxCommitter?: GroupCommitter };
function committer(): GroupCommitter {
  if (!holder.__inboxCommitter) {
    const timeoutMs = positiveIntegerEnv(process.env.INGEST_STORE_TIMEOUT_MS, 8_000);
    const maxConcurrent = positiveIntegerEnv(process.env.INGEST_COMMIT_CONCURRENCY, 2);
    const options = { timeoutMs, statementTimeoutMs: Math.floor(timeoutMs * 0.4), maxBatch: 500, maxConcurrent };
    holder.__inboxCommitter = new GroupCommitter(() => getIngestSql({ max: options.maxConcurrent, statementTimeoutMs: options.statementTimeoutMs }), options);
  }
  return holder.__inboxCommitter;
}

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
  const endpoint = await getIngestEndpoint(endpointId).catch(() => {
    throw new StoreUnavailableError("The endpoint could not be read; nothing was kept. Retry later.");
  });
  if (!endpoint) throw new NotFoundError("Endpoint");
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (!TRANSPORT_HEADERS.has(name)) headers[name] = value;
  });
  const body = await readBoundedBody(request, endpoint.maxBodyBytes);
  let verified;
  try {
    verified = verifySignature(endpoint.provider, {
      body, headers, secrets: endpoint.secrets, toleranceSeconds: endpoint.toleranceSeconds, now: new Date(), genericHmac: endpoint.genericHmac,
    });
  } catch (error) {
    if (error instanceof SignatureError) recordRejection(endpoint, { reason: error.code, message: error.message, sourceIp: sourceIpOf(request.headers), headerNames: Object.keys(headers) });
    throw error;
  }
  if (verified.handshakeResponse !== undefined) return { kind: "handshake", body: verified.handshakeResponse };
  const id = newId("dlv");
  const result = await committer().store({
    id,
    organizationId: endpoint.organizationId,
    endpointId: endpoint.id,
    // Without a provider event id every request is its own delivery.
    externalId: verified.externalId ?? id,
    eventType: verified.eventType,
    headers,
    body,
    sourceIp: sourceIpOf(request.headers),
  });
  if (!result) throw new NotFoundError("Endpoint");
  return { kind: "stored", ...result };
}
