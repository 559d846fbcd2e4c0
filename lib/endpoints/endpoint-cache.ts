// A short-lived, per-process cache of what ingest needs to know about an endpoint, so the hot path
// costs one indexed read at most every few seconds per endpoint. Changes made in this process are
// seen at once (forgetEndpoint); other processes see them within TTL_MS.
import { getDb, getSql } from "@/db";
import { NotFoundError, StoreUnavailableError } from "@/lib/errors";
import { isId } from "@/lib/ids";
import { decryptSecret } from "@/lib/crypto/secret-box";
import { loadRoutableDestinations, type RoutableDestination } from "@/lib/destinations/route-request";
import { readProviderSettings } from "@/lib/endpoints/provider-settings";
import { processSingleton } from "@/lib/runtime/process-singleton";
import type { Provider } from "@/lib/signatures";
import type { GenericHmacConfig } from "@/lib/signatures/types";

export interface IngestEndpoint {
  id: string;
  organizationId: string;
  provider: Provider;
  secrets: string[];
  genericHmac: GenericHmacConfig | null;
  /** Meta's verify token, for its GET handshake. */
  verifyToken: string | null;
  maxBodyBytes: number;
  toleranceSeconds: number;
  /** Where its requests go, filters compiled: once per load, not per request. */
  destinations: RoutableDestination[];
  /** When the previous secret stops verifying; the entry is refreshed then. */
  expiresAt: number;
}

const TTL_MS = 5_000;
type Entry = Promise<IngestEndpoint | null> | { value: IngestEndpoint | null; expiresAt: number };
// One per process: Next.js bundles route handlers and server actions separately, each with its own copy
// of this module, so a module-level Map would let the ingest route keep a secret the dashboard rotated.
const cache = processSingleton("ingest endpoint cache", () => new Map<string, Entry>());

async function load(id: string): Promise<IngestEndpoint | null> {
  const [row] = await getSql()`
    select id, organization_id, provider, secret_encrypted, previous_secret_encrypted, previous_secret_valid_until,
           generic_hmac, max_body_bytes, tolerance_seconds
    from endpoints where id = ${id}`;
  if (!row) return null;
  const destinations = await loadRoutableDestinations(getDb(), id);
  const now = Date.now();
  const previousUntil = row.previous_secret_valid_until ? new Date(row.previous_secret_valid_until).getTime() : 0;
  const secrets = [row.secret_encrypted, previousUntil > now ? row.previous_secret_encrypted : null]
    .filter((value): value is string => Boolean(value))
    .map(decryptSecret);
  const settings = readProviderSettings(row.provider, row.generic_hmac);
  return {
    id: row.id,
    organizationId: row.organization_id,
    provider: row.provider,
    secrets,
    genericHmac: settings.genericHmac,
    verifyToken: settings.verifyTokenEncrypted ? decryptSecret(settings.verifyTokenEncrypted) : null,
    maxBodyBytes: row.max_body_bytes,
    toleranceSeconds: row.tolerance_seconds,
    destinations,
    expiresAt: Math.min(now + TTL_MS, previousUntil > now ? previousUntil : Infinity),
  };
}

export async function getIngestEndpoint(id: string): Promise<IngestEndpoint | null> {
  const entry = cache.get(id);
  if (entry && !(entry instanceof Promise) && entry.expiresAt > Date.now()) return entry.value;
  if (entry instanceof Promise) return entry;
  const pending = load(id);
  if (cache.size > 10_000) cache.clear(); // unknown ids from a flood must not grow the map forever
  cache.set(id, pending);
  try {
    const value = await pending;
    if (cache.get(id) === pending) cache.set(id, { value, expiresAt: value?.expiresAt ?? Date.now() + TTL_MS });
    return value;
  } catch (error) {
    cache.delete(id);
    throw error;
  }
}

/** The endpoint a request names, or 404; 503 when it cannot be read. */
export async function requireIngestEndpoint(endpointId: string): Promise<IngestEndpoint> {
  // Not one of our ids: not found, without a query (a NUL in it would be a database error) or a cache entry.
  if (!isId("ep", endpointId)) throw new NotFoundError("Endpoint");
  const endpoint = await getIngestEndpoint(endpointId).catch(() => {
    throw new StoreUnavailableError("The endpoint could not be read; nothing was kept. Retry later.");
  });
  if (!endpoint) throw new NotFoundError("Endpoint");
  return endpoint;
}

export function forgetEndpoint(id: string): void {
  cache.delete(id);
}
