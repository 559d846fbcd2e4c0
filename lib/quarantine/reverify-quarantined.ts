// Re-verify an endpoint's quarantine: every quarantined request that now verifies against the
// endpoint's secrets becomes a delivery with its original receive time, deduped on the provider's
// event id exactly as ingest dedupes (delivery_keys, on conflict do nothing), and
// is delivered; the rest stay until they expire. Run by jobs/reverify-quarantine.ts after a secret
// rotation, and on demand (REST, dashboard).
//
// Verification is ingest's own (lib/signatures, verifySignature) over the exact bytes, headers, method
// and the URL the provider sent to, as kept. Timestamps are checked against the time the request was
// received, not against now: a request refused only because its secret was not known yet was fresh
// when it came, and is admitted days later; one that was already stale when it came stays stale.
// Secrets: the current one, and the previous one for requests received before its grace period ended.
import { and, asc, eq, gt } from "drizzle-orm";
import { sql } from "drizzle-orm";
import type { Tx } from "@/db";
import { quarantinedRequests } from "@/db/schema";
import { withTransaction, type Ctx } from "@/lib/context";
import { decryptSecret } from "@/lib/crypto/secret-box";
import { getEndpointRowOrThrow } from "@/lib/endpoints/get-endpoint-or-throw";
import { readProviderSettings } from "@/lib/endpoints/provider-settings";
import { newId } from "@/lib/ids";
import { storableEventId, storableEventType } from "@/lib/delivery/storable-fields";
import { describeErrorBriefly } from "@/lib/logging/describe-error";
import { filterInputOf, lanesFor, loadRoutableDestinations, type RequestLane, type RoutableDestination } from "@/lib/destinations/route-request";
import { addJobsSql, deliverJobSpecSql } from "@/lib/queue/enqueue";
import { verifySignature } from "@/lib/signatures";
import type { Provider } from "@/lib/signatures";
import { openRequest, type QuarantinedRequestContent } from "./sealed-request";
import { logger } from "@/lib/logging/logger";

const BATCH = 100;

export interface ReverifyResult {
  /** Quarantined requests that verify now (dry run), or that did and left the quarantine as deliveries. */
  count: number;
  /** Of those, how many the endpoint already had (the same provider event id): no second delivery. */
  duplicates?: number;
}

type EndpointRow = Awaited<ReturnType<typeof getEndpointRowOrThrow>>;
type Row = { seq: number; id: string; receivedAt: Date; sourceIp: string | null; sealed: Buffer };
type Admitted = { seq: number; id: string; lanes: RequestLane[]; externalId: string; eventType: string | null; headers: Record<string, string>; body: string; sizeBytes: number; sourceIp: string | null; receivedAt: string };

/** `dryRun` only counts what would be admitted and changes nothing. 404 for another organization's endpoint. */
export async function reverifyQuarantined({ ctx, input }: { ctx: Ctx; input: { endpointId: string; dryRun?: boolean } }): Promise<ReverifyResult> {
  const endpoint = await getEndpointRowOrThrow({ ctx, input: { id: input.endpointId } });
  // `none` verifies nothing: switching an endpoint to it must not let in everything it once refused.
  if (endpoint.provider === "none") return input.dryRun ? { count: 0 } : { count: 0, duplicates: 0 };
  // What it admits goes to the destinations whose filters match it now, as ingest would have sent it.
  const check = verifierFor(endpoint, await loadRoutableDestinations(ctx.db, endpoint.id));
  let after = 0;
  let count = 0;
  let duplicates = 0;
  const deliveryIds: string[] = [];
  for (;;) {
    const batch = await withTransaction(ctx, async (tx) => {
      const query = tx.db
        .select({ seq: quarantinedRequests.seq, id: quarantinedRequests.id, receivedAt: quarantinedRequests.receivedAt, sourceIp: quarantinedRequests.sourceIp, sealed: quarantinedRequests.sealed })
        .from(quarantinedRequests)
        .where(and(eq(quarantinedRequests.endpointId, endpoint.id), eq(quarantinedRequests.organizationId, ctx.organizationId), gt(quarantinedRequests.seq, after)))
        .orderBy(asc(quarantinedRequests.seq))
        .limit(BATCH);
      // A re-verify running beside this one (the job after a rotation, a click) takes other rows.
      const rows: Row[] = input.dryRun ? await query : await query.for("update", { skipLocked: true });
      const verified = rows.flatMap((row) => {
        const outcome = check(row);
        return outcome ? [{ row, outcome }] : [];
      });
      if (input.dryRun || verified.length === 0) return { rows, verified: verified.filter((v) => v.outcome !== "handshake").length, inserted: [] as string[] };
      const admitted: Admitted[] = verified.flatMap(({ row, outcome }) => (outcome === "handshake" ? [] : [{ ...outcome, seq: row.seq }]));
      const inserted = await admit(tx.db, ctx.organizationId, endpoint.id, admitted, verified.map((v) => v.row.seq));
      return { rows, verified: admitted.length, inserted };
    });
    count += batch.verified;
    duplicates += batch.verified - batch.inserted.length;
    deliveryIds.push(...batch.inserted);
    if (batch.rows.length < BATCH) break;
    after = batch.rows[batch.rows.length - 1]!.seq;
  }
  if (input.dryRun) return { count };
  if (count > 0) {
    logger.info({ organizationId: ctx.organizationId, endpointId: endpoint.id, deliveryIds }, `[quarantine] endpoint ${endpoint.id}: ${count} quarantined request(s) verified now; deliveries ${deliveryIds.join(",") || "none"} stored, ${duplicates} duplicate(s) (${ctx.actor.type})`);
  }
  return { count, duplicates };
}

/** A function telling what one quarantined row is now: a delivery to store, a handshake (dropped), or null (still refused). */
function verifierFor(endpoint: EndpointRow, destinations: RoutableDestination[]) {
  const current = endpoint.secretEncrypted ? decryptSecret(endpoint.secretEncrypted) : null;
  const previous = endpoint.previousSecretEncrypted ? decryptSecret(endpoint.previousSecretEncrypted) : null;
  const previousUntil = endpoint.previousSecretValidUntil?.getTime() ?? 0;
  const settings = readProviderSettings(endpoint.provider, endpoint.genericHmac);
  return (row: Row): Omit<Admitted, "seq"> | "handshake" | null => {
    let request: QuarantinedRequestContent;
    try {
      request = openRequest(row.sealed);
    } catch (error) {
      // Sealed under another INBOX_ENCRYPTION_KEY: it can never be read; it expires.
      logger.warn({ organizationId: endpoint.organizationId, endpointId: endpoint.id }, `[quarantine] endpoint ${endpoint.id}: quarantined request ${row.id} is unreadable: ${describeErrorBriefly(error)}`);
      return null;
    }
    const secrets = [current, previous && previousUntil > row.receivedAt.getTime() ? previous : null].filter((s): s is string => s !== null);
    try {
      const verified = verifySignature(endpoint.provider as Provider, {
        body: request.body, headers: request.headers, url: request.url, method: request.method, secrets,
        toleranceSeconds: endpoint.toleranceSeconds, now: row.receivedAt, genericHmac: settings.genericHmac,
      });
      if (verified.handshake !== undefined) return "handshake";
      const id = newId("dlv");
      // Without a provider event id, the quarantined request's own id: admitting it twice is impossible.
      const externalId = verified.externalId !== null ? storableEventId(verified.externalId) : row.id;
      return {
        id,
        lanes: lanesFor({ id, endpointId: endpoint.id, externalId }, destinations, () => filterInputOf(request)),
        externalId,
        eventType: storableEventType(verified.eventType),
        headers: request.headers,
        body: request.body.toString("base64"),
        sizeBytes: request.body.length,
        sourceIp: row.sourceIp,
        receivedAt: row.receivedAt.toISOString(),
      };
    } catch {
      return null; // still refused (signature, timestamp, or an event id ingest would refuse too)
    }
  };
}

/**
 * One statement: the verified rows become deliveries with their payloads and jobs (as ingest stores them,
 * lib/ingest/group-commit.ts), and leave the quarantine. Returns the ids of the deliveries inserted.
 */
async function admit(db: Tx, organizationId: string, endpointId: string, rows: Admitted[], seqs: number[]): Promise<string[]> {
  const result = await db.execute<{ id: string | null }>(sql`
    with rows as materialized (
      select * from json_to_recordset(${JSON.stringify(rows.map((r) => ({
        ...r, lanes: r.lanes.map((l) => ({ id: l.id, destination_id: l.destinationId, filtered: l.filtered, ordering_value: l.orderingValue })), external_id: r.externalId,
        event_type: r.eventType, size_bytes: r.sizeBytes, source_ip: r.sourceIp, received_at: r.receivedAt,
      })))}::text::json)
        as i(id text, lanes json, external_id text, event_type text, headers jsonb, body text, size_bytes int, source_ip text, received_at timestamptz, seq bigint)
    ), keyed as (
      -- The dedupe key first, as ingest's statement does: a key already stored inserts no delivery.
      insert into delivery_keys (endpoint_id, external_id, delivery_id)
      select ${endpointId}, i.external_id, i.id from rows i
      order by i.seq
      on conflict (endpoint_id, external_id) do nothing
      returning delivery_id
    ), inserted as (
      -- A row per destination it goes to (or its one 'filtered' row), as ingest stores them.
      insert into deliveries (id, organization_id, endpoint_id, destination_id, ordering_value, external_id, event_type, size_bytes, source_ip, received_at, status)
      select l.id, ${organizationId}, ${endpointId}, l.destination_id, l.ordering_value, i.external_id, i.event_type, i.size_bytes, i.source_ip, i.received_at,
        case when l.filtered then 'filtered' else 'pending' end
      from rows i join keyed on keyed.delivery_id = i.id
      cross join lateral json_to_recordset(i.lanes) as l(id text, destination_id text, filtered boolean, ordering_value text)
      returning id, destination_id, status
    ), payloads as (
      -- Only the rows inserted: a duplicate keeps the payload it was first stored with.
      insert into delivery_payloads (delivery_id, organization_id, headers, body)
      select i.id, ${organizationId}, i.headers, decode(i.body, 'base64')
      from rows i join keyed on keyed.delivery_id = i.id
    ), enqueued as (
      select ${sql.raw(addJobsSql(`select ${deliverJobSpecSql({ deliveryId: "inserted.id", destinationId: "inserted.destination_id", trigger: "'auto'", keyed: false })} from inserted where inserted.status = 'pending'`))} as jobs
    ), gone as (
      delete from quarantined_requests q
      where q.endpoint_id = ${endpointId} and q.organization_id = ${organizationId} and q.seq = any(${`{${seqs.join(",")}}`}::bigint[])
      returning 1
    )
    select keyed.delivery_id as id from (select count(*) from enqueued) as forced, (select count(*) from gone) as removed,
      (select count(*) from inserted) as rows_in
    left join keyed on true`);
  return result.map((row) => row.id).filter((id): id is string => id !== null);
}
