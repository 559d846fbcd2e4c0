// Group commit: deliveries that arrive together are stored by ONE statement — insert the rows and
// their payloads (headers, body: delivery_payloads), add their jobs with one add_jobs call (none for
// a paused destination's rows: they are stored parked) — and each request is answered only after it commits.
// Every add_job NOTIFYs and Postgres serialises notifying commits on one lock (STACK-NOTES #5), so
// one commit per batch is what lets durable ingest keep up with Next.js; and one statement is one
// round trip, which matters because the web server's event loop is busy with HTTP.
// A batch holds many organizations' requests, so no request may fail it for the others: ingest
// cleans what goes into constrained columns first (lib/delivery/storable-fields.ts), and a batch the database
// still refuses for something in its rows is stored again in halves until only the guilty row fails.
// Big bodies are stored in a lane of their own, one statement each, so they never slow a batch.
import type postgres from "postgres";
import { StoreUnavailableError, UnstorableDeliveryError } from "@/lib/errors";
import { addJobsSql, deliverJobSpecSql } from "@/lib/queue/enqueue";
import { PULL_READY_CHANNEL } from "@/lib/destinations/pull-ready";
import { describeErrorBriefly } from "@/lib/logging/describe-error";
import type { RequestLane } from "@/lib/destinations/route-request";
import { logger } from "@/lib/logging/logger";

export interface NewDelivery {
  /** The request's id: its payload's and dedupe key's, and the answer's. */
  id: string;
  organizationId: string;
  endpointId: string;
  /** Its delivery rows, one per destination it goes to, or the one `filtered` row (lib/destinations/route-request.ts). */
  lanes: RequestLane[];
  externalId: string;
  eventType: string | null;
  headers: Record<string, string>;
  body: Buffer;
  sourceIp: string | null;
  /** A test event, sent from the dashboard or the API rather than received (lib/ingest/send-test-event.ts). */
  isTest?: boolean;
}

/** The stored delivery's id; `duplicate` when the endpoint already had this external id. null: the endpoint is gone. */
export type StoreResult = { id: string; duplicate: boolean } | null;

interface Waiting {
  delivery: NewDelivery;
  deadline: number;
  resolve: (result: StoreResult) => void;
  reject: (error: Error) => void;
}

export interface GroupCommitOptions {
  /** How long a request may wait for its commit before it is answered 503. */
  timeoutMs: number;
  /** The server cuts every ingest statement off after this long (set on the pool's connections). */
  statementTimeoutMs: number;
  maxBatch: number;
  /** Shared batches in flight at once; each holds one pooled connection. */
  maxConcurrent: number;
  /** Bodies over this many bytes are stored alone, in the large lane (default 256 KiB). */
  largeBodyBytes?: number;
  /** A shared batch stops growing once its bodies reach this many bytes (default 4 MiB). */
  maxBatchBytes?: number;
  /** Large-body statements in flight at once; each holds one more pooled connection (default 1). */
  maxLargeConcurrent?: number;
}

/** The pool may have to connect first (connect_timeout is 1 s). */
const CONNECT_ALLOWANCE_MS = 1_000;

const STORE = `
  -- The batch's paused destinations ($2: its destination ids). Their deliveries are stored parked (pending,
  -- no job: nothing runs for them until a resume wakes them, oldest parked first). Locked FOR SHARE,
  -- which waits for an uncommitted change of the row and then reads its newest version: a resume
  -- that commits first is seen here, and one that commits later waited for this statement, so its
  -- wake-up sees these rows parked. Active destinations are not locked (only rows that pass the filter are).
  with held as materialized (
    select e.id from destinations e
    where e.id in (select json_array_elements_text($2::text::json)) and e.paused
    order by e.id for share
  ),
  -- The batch's active pull destinations: never pushed to, their deliveries are stored parked for pulls to lease
  -- (lib/delivery/engine/lease-deliveries.ts), and their waiting pulls are told at the commit (pull-ready.ts).
  -- Not locked: nothing wakes them (a destination's type never changes).
  pulled as materialized (
    select e.id from destinations e
    where e.id in (select json_array_elements_text($2::text::json)) and e.type = 'pull' and not e.paused
  ),
  rows as materialized (
    select * from json_to_recordset($1::text::json) as i(id text, organization_id text, endpoint_id text, lanes json,
         external_id text, event_type text, headers jsonb, body text, size_bytes int, source_ip text, is_test boolean)
  ),
  keyed as (
    -- The dedupe key first (its own table: deliveries is partitioned, db/schema/deliveries.ts): a repeat of
    -- a stored key, or of an earlier row of this batch, inserts nothing here and so no delivery below.
    insert into delivery_keys (endpoint_id, external_id, delivery_id)
    select i.endpoint_id, i.external_id, i.id from rows i
    where exists (select 1 from endpoints e where e.id = i.endpoint_id)
    on conflict (endpoint_id, external_id) do nothing
    returning delivery_id
  ),
  inserted as (
    -- A row per destination the request goes to (its lanes), all sharing its payload and key.
    insert into deliveries (id, organization_id, endpoint_id, destination_id, ordering_value, external_id, event_type, size_bytes, source_ip, is_test, status, parked_at)
    select l.id, i.organization_id, i.endpoint_id, l.destination_id, l.ordering_value, i.external_id, i.event_type, i.size_bytes, i.source_ip, coalesce(i.is_test, false),
           case when l.filtered then 'filtered' else 'pending' end,
           -- Per row, in the batch's order of arrival: parked deliveries leave in parked_at order.
           case when not l.filtered and (l.destination_id in (select id from held) or l.destination_id in (select id from pulled)) then clock_timestamp() end
    from rows i join keyed on keyed.delivery_id = i.id
    cross join lateral json_to_recordset(i.lanes) as l(id text, destination_id text, filtered boolean, ordering_value text)
    returning id, destination_id, status, parked_at
  ), payloads as (
    -- The headers and body of the rows inserted, and of no other: a duplicate's payload is the first one's.
    -- In this statement, so that a delivery is never without its payload.
    insert into delivery_payloads (delivery_id, organization_id, headers, body)
    select i.id, i.organization_id, i.headers, decode(i.body, 'base64')
    from rows i join keyed on keyed.delivery_id = i.id
  ), enqueued as (
    -- Each inserted delivery's job, unless it is parked. Unkeyed: a delivery just inserted has no job
    -- a key could replace, and add_jobs skips its key work (the key index, the conflict check, the
    -- look for running jobs with the key). A bury before the first attempt leaves this job to find its
    -- delivery settled and end; a replay before it runs adds the keyed job beside it, and the claim
    -- lets only one attempt happen. Not called without a job to add: add_jobs NOTIFYs even for none,
    -- and notifying commits queue on one lock (STACK-NOTES 5).
    select ${addJobsSql(`select ${deliverJobSpecSql({ deliveryId: "inserted.id", destinationId: "inserted.destination_id", trigger: "'auto'", keyed: false })} from inserted where inserted.parked_at is null and inserted.status = 'pending'`)} as jobs
    where exists (select 1 from inserted where inserted.parked_at is null and inserted.status = 'pending')
  ), told as (
    select pg_notify('${PULL_READY_CHANNEL}', t.destination_id)
    from (select distinct destination_id from inserted where destination_id in (select id from pulled)) t
  )
  -- The requests stored (a row each at least), once the rows, their payloads and jobs are.
  select keyed.delivery_id as id from keyed, (select count(*) from inserted) as rows_in, (select count(*) from enqueued) as forced,
    (select count(*) from told) as notified`;

const FIND_EXISTING = `
  select d.delivery_id as id, d.endpoint_id, d.external_id
  from json_to_recordset($1::text::json) as k(endpoint_id text, external_id text)
  join delivery_keys d on d.endpoint_id = k.endpoint_id and d.external_id = k.external_id`;

/**
 * SQLSTATE classes that a row's own content can cause — 22 data exception (e.g. \u0000 in text, a bad
 * surrogate in JSON), 23 integrity constraint, 54 program limit (an index row over 2,704 bytes), 21
 * cardinality — or that a smaller statement may not meet again (40: deadlock, serialization). Anything
 * else (timeout, connection, shutdown) is the store's failure: every row of the statement gets 503.
 */
const ROW_CAUSED = new Set(["21", "22", "23", "40", "54"]);
const sqlState = (error: unknown): string | undefined => (error as { code?: unknown })?.code?.toString();
const isRowCaused = (error: unknown) => ROW_CAUSED.has(sqlState(error)?.slice(0, 2) ?? "");

export class GroupCommitter {
  private queue: Waiting[] = [];
  private large: Waiting[] = [];
  private inFlight = 0;
  private largeInFlight = 0;
  private lastLargeOrganization: string | null = null;
  private readonly largeBodyBytes: number;
  private readonly maxBatchBytes: number;
  private readonly maxLargeConcurrent: number;

  constructor(
    private readonly sql: () => postgres.Sql,
    private readonly options: GroupCommitOptions,
  ) {
    this.largeBodyBytes = options.largeBodyBytes ?? 262_144;
    this.maxBatchBytes = options.maxBatchBytes ?? 4_194_304;
    this.maxLargeConcurrent = options.maxLargeConcurrent ?? 1;
  }

  store(delivery: NewDelivery): Promise<StoreResult> {
    return new Promise((resolve, reject) => {
      const waiting = { delivery, deadline: Date.now() + this.options.timeoutMs, resolve, reject };
      (delivery.body.length > this.largeBodyBytes ? this.large : this.queue).push(waiting);
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.options.maxConcurrent) {
      this.inFlight++;
      void this.settle(this.nextBatch()).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
    while (this.large.length > 0 && this.largeInFlight < this.maxLargeConcurrent) {
      this.largeInFlight++;
      void this.settle([this.nextLarge()]).finally(() => {
        this.largeInFlight--;
        this.pump();
      });
    }
  }

  /** The oldest waiting requests, up to maxBatch rows and maxBatchBytes of bodies (at least one). */
  private nextBatch(): Waiting[] {
    let count = 0;
    let bytes = 0;
    while (count < this.queue.length && count < this.options.maxBatch) {
      bytes += this.queue[count]!.delivery.body.length;
      if (count > 0 && bytes > this.maxBatchBytes) break;
      count++;
    }
    return this.queue.splice(0, count);
  }

  /** The oldest large body of an organization other than the last one served, so one organization's uploads take turns with others'. */
  private nextLarge(): Waiting {
    const other = this.large.findIndex((w) => w.delivery.organizationId !== this.lastLargeOrganization);
    const [waiting] = this.large.splice(Math.max(other, 0), 1);
    this.lastLargeOrganization = waiting!.delivery.organizationId;
    return waiting!;
  }

  /** Answers every request of `batch`: stored, or refused alone when the database refuses its own row. */
  private async settle(batch: Waiting[]): Promise<void> {
    let inserted: Set<string>;
    try {
      inserted = await this.insert(batch);
    } catch (error) {
      if (batch.length > 1 && isRowCaused(error)) {
        // Nothing of the statement was kept; halves are stored one after the other on this lane's connection.
        const half = Math.ceil(batch.length / 2);
        await this.settle(batch.slice(0, half));
        await this.settle(batch.slice(half));
        return;
      }
      this.fail(batch, error);
      return;
    }
    const fresh = batch.filter((w) => inserted.has(w.delivery.id));
    const rest = batch.filter((w) => !inserted.has(w.delivery.id));
    fresh.forEach((w) => w.resolve({ id: w.delivery.id, duplicate: false }));
    if (rest.length === 0) return;
    try {
      const existing = await this.findExisting(rest);
      rest.forEach(({ delivery: d, resolve }) => {
        const id = existing.get(`${d.endpointId}\n${d.externalId}`);
        resolve(id ? { id, duplicate: true } : null);
      });
    } catch (error) {
      // These rows added nothing (a duplicate, or a deleted endpoint): a retry is answered as a duplicate.
      this.fail(rest, error);
    }
  }

  private fail(batch: Waiting[], error: unknown): void {
    const state = sqlState(error);
    if (batch.length === 1 && isRowCaused(error) && !state!.startsWith("40")) {
      const { id, organizationId, endpointId } = batch[0]!.delivery;
      // The database's message, never the row's content: bodies and ids may hold secrets.
      logger.error({ deliveryId: id, organizationId, endpointId }, `[ingest] delivery ${id} (organization ${organizationId}, endpoint ${endpointId}) refused by the database: ${describeErrorBriefly(error)}`);
      batch[0]!.reject(new UnstorableDeliveryError());
      return;
    }
    const deliveryIds = batch.map((w) => w.delivery.id);
    logger.error({ deliveryIds }, `[ingest] could not store deliveries ${deliveryIds.join(",")}: ${describeErrorBriefly(error)}`);
    const answer = error instanceof StoreUnavailableError ? error : new StoreUnavailableError();
    batch.forEach((waiting) => waiting.reject(answer));
  }

  /** One statement: the rows, their payloads and their jobs (a paused destination's rows parked, without one), committed together. Resolves with the ids it inserted. */
  private async insert(batch: Waiting[]): Promise<Set<string>> {
    const deadline = Math.min(...batch.map((w) => w.deadline));
    // Send only if the statement is sure to end (commit or be cut off) before anyone is answered 503.
    if (deadline - Date.now() < this.options.statementTimeoutMs + CONNECT_ALLOWANCE_MS) {
      throw new StoreUnavailableError("The delivery could not be stored in time; nothing was kept. Retry later.");
    }
    const rows = batch.map(({ delivery: d }) => ({
      id: d.id, organization_id: d.organizationId, endpoint_id: d.endpointId, lanes: d.lanes.map((l) => ({ id: l.id, destination_id: l.destinationId, filtered: l.filtered, ordering_value: l.orderingValue })), external_id: d.externalId,
      event_type: d.eventType, headers: d.headers, body: d.body.toString("base64"), size_bytes: d.body.length, source_ip: d.sourceIp, is_test: d.isTest ?? false,
    }));
    // Prepared: postgres.js sends an unprepared unsafe() query as Parse+Describe, waits for the answer,
    // then sends Bind+Execute — two round trips and a parse of this statement per batch.
    const destinationIds = JSON.stringify([...new Set(batch.flatMap((w) => w.delivery.lanes.map((l) => l.destinationId)))]);
    const result = await this.sql().unsafe(STORE, [JSON.stringify(rows), destinationIds], { prepare: true });
    return new Set(result.map((r) => r.id as string));
  }

  /** Committed by now, and read in a new snapshot: sees rows that concurrent batches committed too. */
  private async findExisting(batch: Waiting[]): Promise<Map<string, string>> {
    const keys = batch.map(({ delivery: d }) => ({ endpoint_id: d.endpointId, external_id: d.externalId }));
    const existing = new Map<string, string>();
    for (const row of await this.sql().unsafe(FIND_EXISTING, [JSON.stringify(keys)], { prepare: true })) existing.set(`${row.endpoint_id}\n${row.external_id}`, row.id);
    return existing;
  }
}
