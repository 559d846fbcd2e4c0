// Migration 0019 (issue #13) on a database at 0018 holding deliveries in every state: the payloads move to
// delivery_payloads with nothing lost — every state column, header and body byte, every attempt — and the
// migrated database then works (a waiting delivery is claimed and sent with its own bytes, search finds a
// migrated body through the new trigram index and through the big-body one).
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { ONLINE_INDEXES } from "@/db/online-indexes";
import { deliverTask } from "@/jobs/deliver";
import { createCtx } from "@/lib/context";
import { listDeliveries } from "@/lib/delivery/list-deliveries";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { enqueueRaw } from "@/lib/queue/enqueue";
import { jobSpec } from "@/lib/queue/job-registry";
import { startDestination, startTestWorker, until } from "@/test/delivery-fixtures";
import { migrateAsBefore, onlineIndexesBefore0033, useUpgradeDatabase } from "@/test/migrations-before";
import { migrateDatabase } from "./migrate";

const { older, create } = useUpgradeDatabase("0019_payloads_apart");

interface Seed {
  id: string;
  endpoint: "live" | "paused";
  status: "pending" | "delivering" | "delivered" | "dead";
  body: Buffer;
  headers: Record<string, string>;
  eventType: string | null;
  attempts: number;
  parked?: boolean;
  claimed?: boolean;
}

const json = (text: string) => Buffer.from(text, "utf8");
// Not UTF-8 (convert_from would raise), with a NUL, a backslash and bytes over 0x7F.
const BINARY = Buffer.from([0x00, 0xff, 0xfe, 0x5c, 0x30, 0x80, 0x7b, 0xc3, 0x28, 0x0a, 0x00]);
const BIG_BINARY = Buffer.concat([randomBytes(40 * 1024), json(" LargeNeedle42 "), randomBytes(60 * 1024)]); // > 64 KiB

const SEEDS: Seed[] = [
  { id: "dlv_a_pending", endpoint: "live", status: "pending", body: json('{"type":"order.created","n":1}'), headers: { "content-type": "application/json", "x-one": "1" }, eventType: "order.created", attempts: 0 },
  { id: "dlv_a_retrying", endpoint: "live", status: "pending", body: BINARY, headers: { "content-type": "application/octet-stream" }, eventType: null, attempts: 2 },
  { id: "dlv_a_parked", endpoint: "paused", status: "pending", body: json('{"parked":true}'), headers: {}, eventType: "order.parked", attempts: 0, parked: true },
  { id: "dlv_a_delivering", endpoint: "live", status: "delivering", body: json('{"in":"flight"}'), headers: { "x-h": "é ü 🚀" }, eventType: "order.flying", attempts: 1, claimed: true },
  { id: "dlv_a_delivered", endpoint: "live", status: "delivered", body: json('{"note":"ZebraWord42 inside"}'), headers: { "content-type": "application/json" }, eventType: "order.done", attempts: 2 },
  { id: "dlv_a_dead", endpoint: "live", status: "dead", body: BINARY.subarray(1), headers: { a: "b" }, eventType: "order.dead", attempts: 3 },
  { id: "dlv_a_big", endpoint: "live", status: "delivered", body: BIG_BINARY, headers: { "content-type": "application/octet-stream" }, eventType: "blob", attempts: 1 },
  { id: "dlv_a_big_dead", endpoint: "live", status: "dead", body: Buffer.alloc(70 * 1024, 0x61), headers: {}, eventType: "blob", attempts: 1 },
  { id: "dlv_a_empty", endpoint: "live", status: "delivered", body: Buffer.alloc(0), headers: {}, eventType: null, attempts: 1 },
];

describe("migration 0019 (payloads apart) on a database at 0018 with deliveries in every state", () => {
  it("moves every header and body byte for byte, keeps every state column and attempt, and the database then works", { timeout: 120_000 }, async () => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    process.env.DELIVERY_LOG = "problems";
    const url = await create(); // DATABASE_URL: the worker and listDeliveries use this database
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const destination = await startDestination();
    let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
    try {
      // A database as 0018 left it: our migrations up to it, graphile-worker's, the online indexes of then.
      await migrateAsBefore(sql, url, older, onlineIndexesBefore0033(ONLINE_INDEXES).filter((index) => !index.on.startsWith(`"delivery_payloads"`)));
      expect((await sql`select 1 from pg_class where relname = 'deliveries_body_trgm_idx'`).length).toBe(1);

      await sql`insert into organizations (id, name) values ('org_u', 'Upgraded')`;
      await sql`insert into endpoints (id, organization_id, name, provider, destination_url, paused)
        values ('ep_u_live', 'org_u', 'Live', 'none', ${destination.url}, false), ('ep_u_paused', 'org_u', 'Paused', 'none', ${destination.url}, true)`;
      for (const [i, s] of SEEDS.entries()) {
        const retrying = s.status === "pending" && s.attempts > 0;
        await sql`insert into deliveries (id, organization_id, endpoint_id, external_id, event_type, status, headers, body, size_bytes,
            source_ip, received_at, attempt_count, auto_attempt_count, last_status_code, last_error, next_attempt_at, delivered_at,
            claimed_by_job, lease_expires_at, parked_at, pending_since, updated_at)
          values (${s.id}, 'org_u', ${`ep_u_${s.endpoint}`}, ${`evt_${s.id}`}, ${s.eventType}, ${s.status}, ${JSON.stringify(s.headers)}::jsonb, ${s.body}, ${s.body.length},
            ${`192.0.2.${i}`}, now() - ${`${60 - i} minutes`}::interval, ${s.attempts}, ${s.attempts},
            ${s.attempts ? (s.status === "delivered" ? 200 : 500) : null}, ${s.status === "dead" || retrying ? "HTTP 500" : null},
            case when ${retrying} then now() - interval '1 second' end, case when ${s.status === "delivered"} then now() - interval '5 minutes' end,
            ${s.claimed ? "4242" : null}, case when ${Boolean(s.claimed)} then now() + interval '1 minute' end,
            case when ${Boolean(s.parked)} then now() - interval '10 minutes' end,
            now() - ${`${60 - i} minutes`}::interval, now() - ${`${30 - i} seconds`}::interval)`;
        for (let n = 1; n <= s.attempts; n++) {
          await sql`insert into attempts (organization_id, delivery_id, number, trigger, started_at, duration_ms, status_code, response_body, error)
            values ('org_u', ${s.id}, ${n}, ${n === 3 ? "replay" : "auto"}, now() - ${`${n} minutes`}::interval, ${10 * n},
              ${n === s.attempts && s.status === "delivered" ? 200 : 500}, ${`answer ${n}`}, ${n === s.attempts && s.status === "delivered" ? null : "HTTP 500"})`;
        }
      }
      // The two waiting deliveries of the live endpoint have their jobs, as ingest and a retry left them then:
      // naming the endpoint (the worker finds its default destination, jobs/deliver.ts).
      await enqueueRaw(sql, ["dlv_a_pending", "dlv_a_retrying"].map((id) => jobSpec("deliver", { deliveryId: id, endpointId: "ep_u_live", trigger: "auto" })));

      const stateBefore = await sql`select * from deliveries order by id`;
      const attemptsBefore = await sql`select * from attempts order by id`;

      await migrateDatabase(url);

      // Nothing lost: the state columns as they were (and, from 0036, each its endpoint's default destination; from
      // 0045 the test flag off; from 0046 a dead reason only for a recent bury, told by its last error), the payloads
      // byte for byte, the attempts untouched.
      const stateAfter = await sql`select * from deliveries order by id`;
      expect(stateAfter.map((row) => ({ ...row }))).toEqual(stateBefore.map(({ headers: _headers, body: _body, ...rest }) =>
        ({ ...rest, destination_id: defaultDestinationId(rest.endpoint_id as string), ordering_value: null, is_test: false,
          dead_reason: rest.status === "dead" && String(rest.last_error ?? "").startsWith("buried on request") ? "buried" : null })));
      // From 0047 an attempt's request and response headers, null on those made before.
      expect((await sql`select * from attempts order by id`).map((row) => ({ ...row }))).toEqual(attemptsBefore.map((row) => ({ ...row, request_headers: null, response_headers: null })));
      const payloads = await sql<{ delivery_id: string; organization_id: string; headers: Record<string, string>; body: Buffer; searchable: boolean }[]>`
        select delivery_id, organization_id, headers, body, searchable from delivery_payloads order by delivery_id`;
      expect(payloads.map((p) => p.delivery_id)).toEqual(SEEDS.map((s) => s.id).sort());
      for (const p of payloads) {
        const seed = SEEDS.find((s) => s.id === p.delivery_id)!;
        expect(p.organization_id).toBe("org_u");
        expect(p.headers).toEqual(seed.headers);
        expect(Buffer.compare(p.body, seed.body), p.delivery_id).toBe(0);
        // Migration 0020: bodies stored before it were in the body index already; none waits for the indexer.
        expect(p.searchable, p.delivery_id).toBe(true);
      }
      const columns = await sql`select column_name from information_schema.columns where table_name = 'deliveries' and column_name in ('headers', 'body')`;
      expect(columns).toHaveLength(0);
      const indexes = await sql<{ relname: string; valid: boolean }[]>`
        select c.relname, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
        where c.relname in ('deliveries_body_trgm_idx', 'delivery_payloads_body_trgm_idx', 'delivery_payloads_body_searchable_trgm_idx', 'delivery_payloads_body_by_time_trgm_idx', 'delivery_payloads_body_by_bucket_trgm_idx', 'delivery_payloads_body_by_bucket_words_idx')`;
      // Migration 0048's word index took over from the last of the trigram indexes.
      expect(indexes.map((row) => ({ ...row }))).toEqual([{ relname: "delivery_payloads_body_by_bucket_words_idx", valid: true }]);

      // It works: the waiting deliveries are claimed and sent with their own bytes and headers.
      worker = await startTestWorker({ deliver: deliverTask });
      await until("both waiting deliveries delivered", async () => {
        const rows = await sql`select count(*)::int as n from deliveries where id in ('dlv_a_pending', 'dlv_a_retrying') and status = 'delivered'`;
        return rows[0]!.n === 2;
      });
      for (const id of ["dlv_a_pending", "dlv_a_retrying"]) {
        const seed = SEEDS.find((s) => s.id === id)!;
        const sent = destination.requests.filter((r) => r.headers["x-inbox-delivery-id"] === id);
        expect(sent, id).toHaveLength(1);
        expect(Buffer.compare(sent[0]!.body, seed.body), id).toBe(0);
        for (const [header, value] of Object.entries(seed.headers)) expect(sent[0]!.headers[header], `${id} ${header}`).toBe(value);
      }
      expect((await sql`select number from attempts where delivery_id = 'dlv_a_retrying' order by number`).map((r) => r.number)).toEqual([1, 2, 3]);

      // Search finds migrated bodies, whatever the case, by walking the newest and through the indexes (a window of 1).
      const ctx = createCtx("org_u", { type: "system" });
      const search = async (q: string) => (await listDeliveries({ ctx, input: { q } })).data.map((d) => d.id);
      for (const window of ["1", "10000"]) {
        process.env.INBOX_SEARCH_WINDOW = window;
        expect(await search("zebraword42"), `window ${window}`).toEqual(["dlv_a_delivered"]);
        expect(await search("LARGENEEDLE42"), `window ${window}`).toEqual(["dlv_a_big"]);
        expect(await search("parked"), `window ${window}`).toEqual(["dlv_a_parked"]);
      }
    } finally {
      delete process.env.INBOX_SEARCH_WINDOW;
      await worker?.stop();
      await destination.close();
      await sql.end();
    }
  });
});
