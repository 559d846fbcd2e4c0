// Fixtures for delivery tests: stored deliveries (row + payload + job in one transaction, as ingest does),
// a real local destination server, and an in-process graphile-worker running the real tasks.
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { run, type Runner, type TaskList } from "graphile-worker";
import { getDb, getSql } from "@/db";
import { deliveries, deliveryPayloads } from "@/db/schema";
import { deliverJobSpec, enqueue } from "@/lib/queue/enqueue";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import type { Ctx } from "@/lib/context";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { newId, timeOrderedIdFloor } from "@/lib/ids";
import { deliverySettings, finishAttempt, type ClaimedAttempt } from "@/lib/delivery/engine";
import { quietGraphileLogger } from "@/lib/runtime/migrate";

/** An endpoint of ctx's organization pointing at `destinationUrl` (provider `none`). */
export async function createEndpointFixture(ctx: Ctx, destinationUrl: string, settings: Record<string, unknown> = {}) {
  return createEndpoint({ ctx, input: { name: `ep-${randomBytes(3).toString("hex")}`, provider: "none", destinationUrl, ...settings } });
}

export interface DeliveryFixtureInput {
  ctx: Ctx;
  endpointId: string;
  body?: Buffer | string;
  headers?: Record<string, string>;
  eventType?: string | null;
  externalId?: string;
  receivedAt?: Date;
  status?: "pending" | "delivered" | "dead";
  /** Enqueue its `deliver` job in the same transaction (default true, like ingest). */
  enqueue?: boolean;
  /** Its body already in the trigram index, as lib/search/index-bodies.ts leaves it (default false, as ingest stores it). */
  searchable?: boolean;
  /** Its id, to place it in a given week's partitions (test/partition-weeks.ts idInWeek); default a new one. */
  id?: string;
}

/** A stored delivery, inserted with its payload and job in one transaction, the way ingest stores one. */
export async function createDeliveryFixture(input: DeliveryFixtureInput): Promise<{ id: string; body: Buffer }> {
  const body = Buffer.isBuffer(input.body) ? input.body : Buffer.from(input.body ?? JSON.stringify({ type: input.eventType ?? "test.event", n: randomBytes(4).toString("hex") }));
  const id = input.id ?? newId("dlv");
  await getDb().transaction(async (tx) => {
    await tx.insert(deliveries).values({
      id,
      organizationId: input.ctx.organizationId,
      endpointId: input.endpointId,
      // Its endpoint's default destination, as ingest hands it to an endpoint made with destinationUrl.
      destinationId: defaultDestinationId(input.endpointId),
      externalId: input.externalId ?? `evt_${randomBytes(8).toString("hex")}`,
      eventType: input.eventType === undefined ? "test.event" : input.eventType,
      status: input.status ?? "pending",
      sizeBytes: body.length,
      // Waiting since its receipt, as ingest stores it.
      ...(input.receivedAt ? { receivedAt: input.receivedAt, pendingSince: input.receivedAt } : {}),
    });
    await tx.insert(deliveryPayloads).values({
      deliveryId: id, organizationId: input.ctx.organizationId, headers: input.headers ?? { "content-type": "application/json" }, body,
      searchable: input.searchable ?? false,
    });
    if (input.enqueue !== false) await enqueue(tx, [deliverJobSpec({ deliveryId: id, destinationId: defaultDestinationId(input.endpointId), trigger: "auto" })]);
  });
  return { id, body };
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  receivedAt: number;
}

export type DestinationHandler = (request: ReceivedRequest, response: http.ServerResponse, index: number) => void | Promise<void>;

export interface Destination {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Requests being answered right now, and the most there ever were at once. */
  inFlight: () => number;
  maxInFlight: () => number;
  setHandler(handler: DestinationHandler): void;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 (port 0) that records every request; answers 200 unless told otherwise. */
export async function startDestination(handler: DestinationHandler = (_r, res) => void res.end("ok")): Promise<Destination> {
  let current = handler;
  const requests: ReceivedRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on("close", () => inFlight--);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const received = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks), receivedAt: Date.now() };
      const index = requests.push(received) - 1;
      Promise.resolve(current(received, res, index)).catch((error) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    requests,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    setHandler: (next) => (current = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** graphile-worker in this process, running the given tasks with the production batching options. */
export async function startTestWorker(taskList: TaskList, options: { concurrency?: number; maxPoolSize?: number } = {}): Promise<Runner> {
  const concurrency = options.concurrency ?? 10;
  return run({
    connectionString: process.env.DATABASE_URL!,
    taskList,
    concurrency,
    maxPoolSize: options.maxPoolSize ?? concurrency + 2,
    pollInterval: 200,
    noHandleSignals: true,
    logger: quietGraphileLogger,
    preset: { worker: { localQueue: { size: 50 }, completeJobBatchDelay: 1, failJobBatchDelay: 1 } },
  });
}

/** Polls `probe` until it returns something truthy (or throws after `timeoutMs`). */
// 45 s by default: only a failing wait lasts that long, and in a loaded CI run 20 s was too short for a worker process's start.
export async function until<T>(what: string, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Ends a claimed attempt as the destination's 200, letting it pass its slot on. */
export function finishDelivered(attempt: ClaimedAttempt, jobId: string) {
  return finishAttempt({
    attempt,
    jobId,
    send: { result: { kind: "response", statusCode: 200, retryAfterMs: null }, responseBody: "ok", durationMs: 1 },
    outcome: { kind: "delivered" },
    settings: deliverySettings(),
    slot: "pass-on",
  });
}

/**
 * An organization's settled history, in SQL (fast enough for tens of thousands): `count` deliveries of an
 * endpoint that need not exist, the n-th received n seconds before `endingAt` (ms; default now), id
 * `dlv_<idPrefix><n padded>` (or, with `timeOrdered`, an id made at that time, as lib/ids.ts makes them), each
 * with a searchable ~1 KB body that holds `word` (a word of its own) when n is a multiple of 100. One statement per 5,000 (each body's words go into the word index as it is
 * stored), each well inside the pool's statement timeout on a busy machine.
 */
export async function seedDeliveryHistory(input: { organizationId: string; idPrefix: string; count: number; word?: string; timeOrdered?: boolean; endingAt?: number }): Promise<void> {
  const { organizationId, idPrefix, count, word = "", timeOrdered = false } = input;
  const now = input.endingAt ?? Date.now();
  for (let from = 1; from <= count; from += 5_000) {
    const to = Math.min(count, from + 4_999);
    const ids = timeOrdered
      ? Array.from({ length: to - from + 1 }, (_, k) => timeOrderedIdFloor("dlv", now - (from + k) * 1000) + newId("dlv").slice(-15))
      : null;
    await getSql()`
      with src as materialized (
        select coalesce((${ids}::text[])[g - ${from}::int + 1], 'dlv_' || ${idPrefix} || lpad(g::text, ${25 - idPrefix.length}::int, '0')) as id,
               to_timestamp(${now}::bigint / 1000.0) - g * interval '1 second' as received_at,
               convert_to('{"note":"' || repeat('hay ', 250) || case when g % 100 = 0 then ${word} || ' ' else '' end || g || '"}', 'UTF8') as body
        from generate_series(${from}::int, ${to}::int) g)
      , stored as (
        insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, pending_since)
        select id, ${organizationId}, 'ep_' || ${idPrefix}, ${defaultDestinationId(`ep_${idPrefix}`)}, id, 'delivered', octet_length(body), received_at, received_at from src)
      insert into delivery_payloads (delivery_id, organization_id, headers, body, searchable)
      select id, ${organizationId}, '{}', body, true from src`;
  }
}
