// Group commit: deliveries that arrive together are inserted in one transaction with one add_jobs
// call, and each request is answered only after that commit. Every add_job NOTIFYs, and Postgres
// serialises notifying commits on one lock (STACK-NOTES #5), so one commit per batch is what lets
// durable ingest keep up with Next.js itself.
import type postgres from "postgres";
import { StoreUnavailableError } from "@/lib/errors";
import { deliverJobSpec, enqueueRaw } from "@/jobs/enqueue";

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
  /** How long a request may wait for its commit before it is answered 503 (and its batch rolled back). */
  timeoutMs: number;
  maxBatch: number;
  /** Batches in flight at once; each holds one pooled connection. */
  maxConcurrent: number;
}

const INSERT = `
  insert into deliveries (id, organization_id, endpoint_id, external_id, event_type, headers, body, size_bytes, source_ip)
  select i.id, i.organization_id, i.endpoint_id, i.external_id, i.event_type, i.headers, decode(i.body, 'base64'),
         i.size_bytes, i.source_ip
  from json_to_recordset($1::text::json) as i(id text, organization_id text, endpoint_id text, external_id text,
       event_type text, headers jsonb, body text, size_bytes int, source_ip text)
  where exists (select 1 from endpoints e where e.id = i.endpoint_id)
  on conflict (endpoint_id, external_id) do nothing
  returning id`;

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
      void this.commit(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async commit(batch: Waiting[]): Promise<void> {
    const deadline = Math.min(...batch.map((w) => w.deadline));
    const timer = setTimeout(() => fail(new StoreUnavailableError("The delivery could not be stored in time; nothing was kept. Retry later.")), Math.max(0, deadline - Date.now()));
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      for (const waiting of batch) waiting.reject(error);
    };
    try {
      const results = await this.sql().begin(async (tx) => {
        // The database gives up before we do, so a request answered 503 never commits later.
        await tx.unsafe(`set local statement_timeout = ${Math.max(1, deadline - Date.now())}`);
        const rows = batch.map(({ delivery: d }) => ({
          id: d.id, organization_id: d.organizationId, endpoint_id: d.endpointId, external_id: d.externalId,
          event_type: d.eventType, headers: d.headers, body: d.body.toString("base64"), size_bytes: d.body.length,
          source_ip: d.sourceIp,
        }));
        const inserted = new Set((await tx.unsafe(INSERT, [JSON.stringify(rows)])).map((r) => r.id as string));
        await enqueueRaw(tx, batch.filter((w) => inserted.has(w.delivery.id)).map(({ delivery: d }) =>
          deliverJobSpec({ deliveryId: d.id, endpointId: d.endpointId, trigger: "auto" })));
        const existing = new Map<string, string>();
        if (inserted.size < batch.length) {
          const keys = batch.filter((w) => !inserted.has(w.delivery.id)).map(({ delivery: d }) => ({ endpoint_id: d.endpointId, external_id: d.externalId }));
          for (const row of await tx.unsafe(FIND_EXISTING, [JSON.stringify(keys)])) existing.set(`${row.endpoint_id}\n${row.external_id}`, row.id);
        }
        if (settled || Date.now() >= deadline) throw new StoreUnavailableError();
        return batch.map(({ delivery: d }): StoreResult => {
          if (inserted.has(d.id)) return { id: d.id, duplicate: false };
          const id = existing.get(`${d.endpointId}\n${d.externalId}`);
          return id ? { id, duplicate: true } : null;
        });
      });
      if (settled) return;
      settled = true;
      batch.forEach((waiting, i) => waiting.resolve(results[i]!));
    } catch (error) {
      if (!settled) console.error(`[ingest] store failed for deliveries ${batch.map((w) => w.delivery.id).join(",")}: ${(error as Error).message}`);
      fail(error instanceof StoreUnavailableError ? error : new StoreUnavailableError());
    } finally {
      clearTimeout(timer);
    }
  }
}
