// Group commit: deliveries that arrive together are stored by ONE statement — insert the rows,
// add their jobs with one add_jobs call — and each request is answered only after it commits.
// Every add_job NOTIFYs and Postgres serialises notifying commits on one lock (STACK-NOTES #5), so
// one commit per batch is what lets durable ingest keep up with Next.js; and one statement is one
// round trip, which matters because the web server's event loop is busy with HTTP.
import type postgres from "postgres";
import { StoreUnavailableError } from "@/lib/errors";
import { deliverJobSpec } from "@/jobs/enqueue";

export interface NewDelivery {
  id: string;
  organizationId: string;
  endpointId: string;
  externalId: string;
  eventType: string | null;
  headers: Record<string, string>;
  body: Buffer;
  sourceIp: string | null;
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
  /** Batches in flight at once; each holds one pooled connection. */
  maxConcurrent: number;
}

/** The pool may have to connect first (connect_timeout is 1 s). */
const CONNECT_ALLOWANCE_MS = 1_000;

const STORE = `
  with inserted as (
    insert into deliveries (id, organization_id, endpoint_id, external_id, event_type, headers, body, size_bytes, source_ip)
    select i.id, i.organization_id, i.endpoint_id, i.external_id, i.event_type, i.headers, decode(i.body, 'base64'),
           i.size_bytes, i.source_ip
    from json_to_recordset($1::text::json) as i(id text, organization_id text, endpoint_id text, external_id text,
         event_type text, headers jsonb, body text, size_bytes int, source_ip text)
    where exists (select 1 from endpoints e where e.id = i.endpoint_id)
    on conflict (endpoint_id, external_id) do nothing
    returning id, endpoint_id
  ), enqueued as (
    -- Each inserted delivery's job, from $2: the constant parts of deliverJobSpec's spec.
    select graphile_worker.add_jobs(array(
      select json_populate_record(null::graphile_worker.job_spec, ($2::text::jsonb || jsonb_build_object(
        'payload', jsonb_build_object('deliveryId', inserted.id, 'endpointId', inserted.endpoint_id, 'trigger', 'auto')))::json)
      from inserted)) as jobs
  )
  select inserted.id from inserted, (select count(*) from enqueued) as forced`;

/**
 * A new delivery's job, less its payload (added per row in SQL). Unkeyed: a delivery just inserted has
 * no job a key could replace, and add_jobs skips its key work (the key index, the conflict check, the
 * look for running jobs with the key). A bury before the first attempt leaves this job to find its
 * delivery settled and end; a replay before it runs adds the keyed job beside it, and the claim lets
 * only one attempt happen (lib/delivery/claim-delivery.ts).
 */
const { payload: _payload, ...jobTemplate } = deliverJobSpec({ deliveryId: "", endpointId: "", trigger: "auto", unkeyed: true });
const JOB_TEMPLATE = JSON.stringify(jobTemplate);

const FIND_EXISTING = `
  select d.id, d.endpoint_id, d.external_id
  from json_to_recordset($1::text::json) as k(endpoint_id text, external_id text)
  join deliveries d on d.endpoint_id = k.endpoint_id and d.external_id = k.external_id`;

export class GroupCommitter {
  private queue: Waiting[] = [];
  private inFlight = 0;

  constructor(
    private readonly sql: () => postgres.Sql,
    private readonly options: GroupCommitOptions,
  ) {}

  store(delivery: NewDelivery): Promise<StoreResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ delivery, deadline: Date.now() + this.options.timeoutMs, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.options.maxConcurrent) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inFlight++;
      void this.commit(batch).then(
        (results) => batch.forEach((waiting, i) => waiting.resolve(results[i]!)),
        (error: Error) => {
          console.error(`[ingest] could not store deliveries ${batch.map((w) => w.delivery.id).join(",")}: ${error.message}`);
          const answer = error instanceof StoreUnavailableError ? error : new StoreUnavailableError();
          batch.forEach((waiting) => waiting.reject(answer));
        },
      ).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async commit(batch: Waiting[]): Promise<StoreResult[]> {
    const deadline = Math.min(...batch.map((w) => w.deadline));
    // Send only if the statement is sure to end (commit or be cut off) before anyone is answered 503.
    if (deadline - Date.now() < this.options.statementTimeoutMs + CONNECT_ALLOWANCE_MS) {
      throw new StoreUnavailableError("The delivery could not be stored in time; nothing was kept. Retry later.");
    }
    const rows = batch.map(({ delivery: d }) => ({
      id: d.id, organization_id: d.organizationId, endpoint_id: d.endpointId, external_id: d.externalId,
      event_type: d.eventType, headers: d.headers, body: d.body.toString("base64"), size_bytes: d.body.length, source_ip: d.sourceIp,
    }));
    // Prepared: postgres.js sends an unprepared unsafe() query as Parse+Describe, waits for the answer,
    // then sends Bind+Execute — two round trips and a parse of this statement per batch.
    const inserted = new Set((await this.sql().unsafe(STORE, [JSON.stringify(rows), JOB_TEMPLATE], { prepare: true })).map((r) => r.id as string));
    const existing = new Map<string, string>();
    if (inserted.size < batch.length) {
      // Committed by now, and read in a new snapshot: sees rows that concurrent batches committed too.
      const keys = batch.filter((w) => !inserted.has(w.delivery.id)).map(({ delivery: d }) => ({ endpoint_id: d.endpointId, external_id: d.externalId }));
      for (const row of await this.sql().unsafe(FIND_EXISTING, [JSON.stringify(keys)], { prepare: true })) existing.set(`${row.endpoint_id}\n${row.external_id}`, row.id);
    }
    return batch.map(({ delivery: d }): StoreResult => {
      if (inserted.has(d.id)) return { id: d.id, duplicate: false };
      const id = existing.get(`${d.endpointId}\n${d.externalId}`);
      return id ? { id, duplicate: true } : null;
    });
  }
}
