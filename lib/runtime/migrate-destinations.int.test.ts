// Migration 0036 (#43) on a database at 0035 holding deliveries in every state: every endpoint gets its default
// destination with the endpoint's own destination settings, every delivery, slot, parked row and organization
// waiting row its destination, and the engine then works on them: a job queued before the upgrade (naming its
// endpoint) delivers, the in-flight slot is still counted, and a resume of the paused endpoint delivers what it held.
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { ONLINE_INDEXES } from "@/db/online-indexes";
import { deliverTask } from "@/jobs/deliver";
import { createCtx } from "@/lib/context";
import { encryptSecret } from "@/lib/crypto/secret-box";
import { updateEndpoint } from "@/lib/endpoints/update-endpoint";
import { enqueueRaw } from "@/lib/queue/enqueue";
import { jobSpec } from "@/lib/queue/job-registry";
import { startDestination, startTestWorker, until } from "@/test/delivery-fixtures";
import { migrateAsBefore, onlineIndexesBefore0036, useUpgradeDatabase } from "@/test/migrations-before";
import { migrateDatabase } from "./migrate";

const { older, create } = useUpgradeDatabase("0036_destinations");

const LIVE = "ep_0036live0000000000000000";
const PAUSED = "ep_0036paused00000000000000";
const ORG = "org_0036";

// One of each state: waiting (fresh, and retrying with its next attempt due), parked behind the pause, in flight
// (claimed, holding a slot), and settled either way.
const SEEDS = [
  { id: "dlv_0036_pending", endpoint: LIVE, status: "pending", attempts: 0 },
  { id: "dlv_0036_retrying", endpoint: LIVE, status: "pending", attempts: 2 },
  { id: "dlv_0036_parked", endpoint: PAUSED, status: "pending", attempts: 0, parked: true },
  { id: "dlv_0036_delivering", endpoint: LIVE, status: "delivering", attempts: 1, claimed: true },
  { id: "dlv_0036_delivered", endpoint: LIVE, status: "delivered", attempts: 1 },
  { id: "dlv_0036_dead", endpoint: LIVE, status: "dead", attempts: 3 },
] as const;

describe("migration 0036 (destinations) on a database at 0035 with deliveries in every state", () => {
  it("gives every endpoint its default destination and every row its destination, and the engine then works", { timeout: 120_000 }, async () => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    process.env.DELIVERY_LOG = "problems";
    process.env.AUTH_SECRET ??= "test-auth-secret-not-for-production";
    const url = await create();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const destination = await startDestination();
    let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
    try {
      await migrateAsBefore(sql, url, older, onlineIndexesBefore0036(ONLINE_INDEXES));
      const outbound = encryptSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
      await sql`insert into organizations (id, name) values (${ORG}, 'Upgraded')`;
      await sql`insert into endpoints (id, organization_id, name, provider, destination_url, paused, max_attempts, retry_base_seconds, timeout_ms, outbound_secret_encrypted)
        values (${LIVE}, ${ORG}, 'Live', 'none', ${`${destination.url}/live`}, false, 5, 7, 4000, ${outbound}),
               (${PAUSED}, ${ORG}, 'Paused', 'none', ${`${destination.url}/paused`}, true, 8, 5, 15000, null)`;
      for (const [i, s] of SEEDS.entries()) {
        const claimed = "claimed" in s;
        const parked = "parked" in s;
        await sql`
          with d as (
            insert into deliveries (id, organization_id, endpoint_id, external_id, event_type, status, size_bytes, received_at,
              attempt_count, auto_attempt_count, next_attempt_at, delivered_at, claimed_by_job, lease_expires_at, parked_at, pending_since)
            values (${s.id}, ${ORG}, ${s.endpoint}, ${`evt_${s.id}`}, 'order.created', ${s.status}, 15, now() - ${`${60 - i} minutes`}::interval,
              ${s.attempts}, ${s.attempts}, case when ${s.attempts > 0 && s.status === "pending"} then now() - interval '1 second' end,
              case when ${s.status === "delivered"} then now() end, ${claimed ? "4242" : null},
              case when ${claimed} then now() + interval '10 minutes' end, case when ${parked} then now() - interval '5 minutes' end,
              now() - ${`${60 - i} minutes`}::interval)
            returning id, organization_id)
          insert into delivery_payloads (delivery_id, organization_id, headers, body)
          select id, organization_id, '{"content-type":"application/json"}', ${Buffer.from(`{"n":"${s.id}"}`)} from d`;
      }
      await sql`insert into endpoint_slots (endpoint_id, shard, organization_id, in_flight) values (${LIVE}, 3, ${ORG}, 1)`;
      await sql`insert into org_waiting_endpoints (organization_id, endpoint_id) values (${ORG}, ${PAUSED})`;
      // Jobs as the release before left them: naming the endpoint, not the destination.
      await enqueueRaw(sql, ["dlv_0036_pending", "dlv_0036_retrying"].map((id) => jobSpec("deliver", { deliveryId: id, endpointId: LIVE, trigger: "auto" })));
      const before = await sql`select id, status, attempt_count, parked_at, claimed_by_job, pending_since from deliveries order by id`;

      await migrateDatabase(url);

      const lanes = await sql`select id, organization_id, endpoint_id, name, type, url, is_default, paused, max_attempts, retry_base_seconds, timeout_ms,
          outbound_secret_encrypted, filter, rate_per_second, ordering_key from destinations order by endpoint_id`;
      expect(lanes.map((row) => ({ ...row }))).toEqual([
        { id: "dst_0036live0000000000000000", organization_id: ORG, endpoint_id: LIVE, name: "Default", type: "http", url: `${destination.url}/live`,
          is_default: true, paused: false, max_attempts: 5, retry_base_seconds: 7, timeout_ms: 4000, outbound_secret_encrypted: outbound,
          filter: null, rate_per_second: null, ordering_key: null },
        { id: "dst_0036paused00000000000000", organization_id: ORG, endpoint_id: PAUSED, name: "Default", type: "http", url: `${destination.url}/paused`,
          is_default: true, paused: true, max_attempts: 8, retry_base_seconds: 5, timeout_ms: 15000, outbound_secret_encrypted: null,
          filter: null, rate_per_second: null, ordering_key: null },
      ]);
      const moved = await sql`select column_name from information_schema.columns where table_name = 'endpoints'
        and column_name in ('destination_url', 'paused', 'max_attempts', 'retry_base_seconds', 'timeout_ms', 'outbound_secret_encrypted')`;
      expect(moved).toHaveLength(0);
      // Every delivery as it was, with its endpoint's default destination.
      const after = await sql`select id, status, attempt_count, parked_at, claimed_by_job, pending_since, destination_id, endpoint_id from deliveries order by id`;
      expect(after.map(({ destination_id: _d, endpoint_id: _e, ...row }) => row)).toEqual(before.map((row) => ({ ...row })));
      for (const row of after) expect(row.destination_id, row.id).toBe(`dst_${(row.endpoint_id as string).slice(3)}`);
      expect((await sql`select destination_id, shard, in_flight from destination_slots`).map((r) => ({ ...r })))
        .toEqual([{ destination_id: "dst_0036live0000000000000000", shard: 3, in_flight: 1 }]);
      expect((await sql`select destination_id from org_waiting_destinations`).map((r) => r.destination_id)).toEqual(["dst_0036paused00000000000000"]);
      expect((await sql`select destination_id, delivery_id from parked_deliveries`).map((r) => ({ ...r })))
        .toEqual([{ destination_id: "dst_0036paused00000000000000", delivery_id: "dlv_0036_parked" }]);
      const indexes = await sql<{ relname: string; valid: boolean }[]>`
        select c.relname, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
        where c.relname in ('deliveries_endpoint_parked_idx', 'deliveries_endpoint_in_flight_idx', 'deliveries_destination_parked_idx', 'deliveries_destination_in_flight_idx')
        order by 1`;
      expect(indexes.map((row) => ({ ...row }))).toEqual([
        { relname: "deliveries_destination_in_flight_idx", valid: true },
        { relname: "deliveries_destination_parked_idx", valid: true },
      ]);

      // The jobs queued before the upgrade deliver, to the destination's URL, signed with its outbound secret,
      // naming the destination.
      worker = await startTestWorker({ deliver: deliverTask });
      await until("both waiting deliveries delivered", async () =>
        (await sql`select count(*)::int as n from deliveries where id in ('dlv_0036_pending', 'dlv_0036_retrying') and status = 'delivered'`)[0]!.n === 2);
      for (const id of ["dlv_0036_pending", "dlv_0036_retrying"]) {
        const sent = destination.requests.filter((r) => r.headers["x-inbox-delivery-id"] === id);
        expect(sent, id).toHaveLength(1);
        expect(sent[0]!.url).toBe(new URL(`${destination.url}/live`).pathname);
        expect(sent[0]!.headers["x-inbox-destination-id"]).toBe("dst_0036live0000000000000000");
        expect(sent[0]!.headers["webhook-signature"]).toMatch(/^v1,/);
      }
      // The attempt in flight still holds its slot, and the settled ones were left alone.
      expect((await sql`select coalesce(sum(in_flight), 0)::int as n from destination_slots`)[0]!.n).toBe(1);
      expect((await sql`select status from deliveries where id in ('dlv_0036_delivered', 'dlv_0036_dead') order by id`).map((r) => r.status)).toEqual(["dead", "delivered"]);

      // A resume of the paused endpoint (its default destination) delivers what it held.
      await updateEndpoint({ ctx: createCtx(ORG, { type: "system" }), input: { id: PAUSED, changes: { paused: false } } });
      await until("the parked delivery delivered", async () =>
        (await sql`select status from deliveries where id = 'dlv_0036_parked'`)[0]!.status === "delivered");
      const held = destination.requests.filter((r) => r.headers["x-inbox-delivery-id"] === "dlv_0036_parked");
      expect(held.map((r) => r.url)).toEqual([new URL(`${destination.url}/paused`).pathname]);
    } finally {
      await worker?.stop();
      await destination.close();
      await sql.end();
    }
  });
});
