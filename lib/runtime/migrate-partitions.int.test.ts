// Migration 0027 (the storage layout: deliveries, delivery_payloads and attempts partitioned by delivery id) on
// a database at 0026 with deliveries in every state, their payloads and attempts, and its online indexes built:
// every row stays as it was, in the legacy partitions, under the indexes it had (attached, not built again);
// ingest still answers a repeat of a stored event id with the stored delivery, and stores new ones in this
// week's partition; deleting a delivery still takes its payload, attempts and key with it; stats are unchanged.
import { defaultLanes } from "@/lib/destinations/route-request";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { ONLINE_INDEXES } from "@/db/online-indexes";
import { createCtx } from "@/lib/context";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { getEndpointStats } from "@/lib/endpoints/get-endpoint-stats";
import { newId } from "@/lib/ids";
import { GroupCommitter, type NewDelivery } from "@/lib/ingest/group-commit";
import { migrateAsBefore, onlineIndexesBefore0031, useUpgradeDatabase } from "@/test/migrations-before";
import { migrateDatabase } from "./migrate";

const { older, create } = useUpgradeDatabase("0027_delivery_partitions");

const STATES = ["pending", "parked", "delivering", "delivered", "dead"] as const;
const PER_STATE = 400;

describe("migration 0027 (delivery partitions) on a database at 0026", () => {
  it("keeps every row and index in the legacy partitions, and ingest, dedupe, deletion and stats work on", { timeout: 120_000 }, async () => {
    const url = await create(); // DATABASE_URL: getEndpointStats uses this database
    const sql = postgres(url, { max: 2, onnotice: () => {} });
    try {
      await migrateAsBefore(sql, url, older, onlineIndexesBefore0031(ONLINE_INDEXES));
      await sql`insert into organizations (id, name) values ('org_u', 'Upgraded')`;
      await sql`insert into endpoints (id, organization_id, name, provider, destination_url)
        values ('ep_u_a', 'org_u', 'A', 'none', 'https://example.com/a'), ('ep_u_b', 'org_u', 'B', 'none', 'https://example.com/b')`;
      // Ids as the random format made them (hex digits stand in for base 36: below the time-ordered marker).
      for (const [s, state] of STATES.entries()) {
        await sql`
          insert into deliveries (id, organization_id, endpoint_id, external_id, event_type, status, size_bytes, received_at,
            attempt_count, auto_attempt_count, last_status_code, claimed_by_job, lease_expires_at, parked_at, updated_at, delivered_at)
          select 'dlv_' || substr(md5(${state} || g), 1, 25), 'org_u', case when g % 3 = 0 then 'ep_u_b' else 'ep_u_a' end,
            'evt_' || ${state} || '_' || g, 'order.' || ${state}, case ${state} when 'parked' then 'pending' else ${state} end, 20 + g,
            now() - (g || ' minutes')::interval, ${s % 3}, ${s % 3}, case when ${s % 3} > 0 then 500 end,
            case ${state} when 'delivering' then 'job_' || g end, case ${state} when 'delivering' then now() + interval '1 minute' end,
            case ${state} when 'parked' then now() - (g || ' seconds')::interval end, now() - (g || ' seconds')::interval,
            case ${state} when 'delivered' then now() end
          from generate_series(1, ${PER_STATE}) g`;
      }
      await sql`insert into delivery_payloads (delivery_id, organization_id, headers, body, searchable)
        select id, organization_id, jsonb_build_object('x-id', id), convert_to('{"id":"' || id || '"}', 'UTF8'), id < 'dlv_8' from deliveries`;
      await sql`insert into attempts (organization_id, delivery_id, number, trigger, started_at, status_code, error)
        select organization_id, id, n, 'auto', now() - (n || ' minutes')::interval, 500, 'HTTP 500'
        from deliveries, generate_series(1, attempt_count) n`;
      const ctx = createCtx("org_u", { type: "system" });
      // Today's stats read the organization's delivery id floor (0030): lent to the database at 0026 for this
      // look, as 0030 adds it, and taken back before the migrations run. Likewise each endpoint's default destination
      // and each delivery's destination (0036), which today's endpoint look and in-flight count join.
      await sql`alter table organizations add column delivery_id_floor text not null default ''`;
      await sql`create table destinations as
        select 'dst_' || substr(id, 4) as id, organization_id, id as endpoint_id, true as is_default, destination_url as url, paused,
          max_attempts, retry_base_seconds, timeout_ms, outbound_secret_encrypted,
          null::int as auto_pause_failures, null::int as auto_pause_minutes, null::int as dead_threshold, null::int as dead_window_minutes
        from endpoints`;
      await sql`alter table endpoints add column alert_channel_ids text[]`; // 0043's, read by today's endpoint look
      await sql`alter table deliveries add column destination_id text`;
      await sql`update deliveries set destination_id = 'dst_' || substr(endpoint_id, 4)`;
      const statsBefore = [await getEndpointStats({ ctx, input: { id: "ep_u_a" } }), await getEndpointStats({ ctx, input: { id: "ep_u_b" } })];
      await sql`alter table deliveries drop column destination_id`;
      await sql`drop table destinations`;
      await sql`alter table endpoints drop column alert_channel_ids`;
      await sql`alter table organizations drop column delivery_id_floor`;
      const snapshot = async () => ({
        deliveries: await sql`select * from deliveries order by id`,
        payloads: await sql`select * from delivery_payloads order by delivery_id`,
        attempts: await sql`select * from attempts order by id`,
      });
      const before = await snapshot();
      expect(before.attempts.length).toBeGreaterThan(1_000);
      const indexOids = async (table: string, as: string) =>
        (await sql<{ name: string; oid: number }[]>`
          select replace(c.relname, ${as}, ${table}) as name, c.oid::int as oid from pg_index i join pg_class c on c.oid = i.indexrelid
          where i.indrelid = ${as}::regclass order by 1`).map((row) => ({ ...row }));
      const indexesBefore = await indexOids("deliveries", "deliveries");
      const maxAttemptId = Number((await sql`select max(id) as id from attempts`)[0]!.id);

      await migrateDatabase(url);

      // Every row as it was (and, from 0036, each its endpoint's default destination), all in the legacy partitions.
      const after = await snapshot();
      expect(after.deliveries.map((row) => ({ ...row }))).toEqual(before.deliveries.map((row) => ({
        ...row, destination_id: defaultDestinationId(row.endpoint_id as string), ordering_value: null, is_test: false,
        // 0046 marks a recent bury, told by its last error; these dead ones failed.
        dead_reason: row.status === "dead" && String(row.last_error ?? "").startsWith("buried on request") ? "buried" : null,
      })));
      expect(after.payloads.map((row) => ({ ...row }))).toEqual(before.payloads.map((row) => ({ ...row })));
      // 0047's headers of an attempt: none recorded for these.
      expect(after.attempts.map((row) => ({ ...row }))).toEqual(before.attempts.map((row) => ({ ...row, request_headers: null, response_headers: null })));
      for (const table of ["deliveries", "delivery_payloads", "attempts"]) {
        const where = await sql`select tableoid::regclass::text as partition, count(*)::int as n from ${sql(table)} group by 1`;
        expect(where.map((row) => ({ ...row })), table).toEqual([{ partition: `${table}_legacy`, n: before[table === "deliveries" ? "deliveries" : table === "attempts" ? "attempts" : "payloads"].length }]);
      }
      // The parked ones are in parked_deliveries (0028's copy; by destination from 0036), which the worker's look reads.
      const parkedBefore = before.deliveries.filter((row) => row.parked_at !== null).map((row) => `${defaultDestinationId(row.endpoint_id as string)} ${row.id}`).sort();
      expect(parkedBefore.length).toBeGreaterThan(0);
      expect((await sql<{ k: string }[]>`select destination_id || ' ' || delivery_id as k from parked_deliveries`).map((row) => row.k).sort()).toEqual(parkedBefore);
      // The same indexes, kept (same oids) and attached to the parent's, but the dedupe key, now delivery_keys', and
      // those the online indexes of later migrations replaced (0036's by destination); and those online indexes, new.
      const legacyIndexes = await indexOids("deliveries", "deliveries_legacy");
      const hadOnline = new Set(onlineIndexesBefore0031(ONLINE_INDEXES).map((index) => index.name));
      const addedLater = ONLINE_INDEXES.filter((index) => !hadOnline.has(index.name)).map((index) => index.name);
      expect(addedLater).toContain("deliveries_org_off_clock_idx");
      const replacedLater = ONLINE_INDEXES.filter((index) => !hadOnline.has(index.name)).flatMap((index) => index.replaces ?? []);
      expect(replacedLater).toContain("deliveries_endpoint_parked_idx");
      expect(legacyIndexes.filter((index) => !addedLater.includes(index.name)))
        .toEqual(indexesBefore.filter((index) => index.name !== "deliveries_endpoint_id_external_id_index" && !replacedLater.includes(index.name)));
      const attached = await sql`select count(*)::int as n from pg_inherits h join pg_index i on i.indexrelid = h.inhrelid where i.indrelid = 'deliveries_legacy'::regclass`;
      expect(attached[0]!.n).toBe(legacyIndexes.length);
      const invalid = await sql`select c.relname from pg_index i join pg_class c on c.oid = i.indexrelid where not i.indisvalid`;
      expect(invalid).toHaveLength(0);
      for (const [i, id] of ["ep_u_a", "ep_u_b"].entries()) {
        // The oldest pending age has grown by the seconds the migration took; the counts are the same.
        const { oldestPendingAgeSeconds, ...counts } = await getEndpointStats({ ctx, input: { id } });
        const { oldestPendingAgeSeconds: ageBefore, ...countsBefore } = statsBefore[i]!;
        expect(counts, id).toEqual(countsBefore);
        expect(oldestPendingAgeSeconds - ageBefore, id).toBeGreaterThanOrEqual(0);
        expect(oldestPendingAgeSeconds - ageBefore, id).toBeLessThan(30);
      }

      // Ingest: a stored event id is a duplicate of the stored delivery; a new one goes in this week's partition.
      const committer = new GroupCommitter(() => sql, { timeoutMs: 8_000, statementTimeoutMs: 5_000, maxBatch: 50, maxConcurrent: 1 });
      const webhook = (externalId: string, id = newId("dlv")): NewDelivery => ({
        id, organizationId: "org_u", endpointId: "ep_u_a", lanes: defaultLanes(id, "ep_u_a"), externalId, eventType: "order.new",
        headers: {}, body: Buffer.from("{}"), sourceIp: null,
      });
      const stored = before.deliveries.find((row) => row.endpoint_id === "ep_u_a" && row.status === "delivered")!;
      expect(await committer.store(webhook(stored.external_id))).toEqual({ id: stored.id, duplicate: true });
      const fresh = await committer.store(webhook("evt_after_the_upgrade"));
      expect(fresh?.duplicate).toBe(false);
      const week = `deliveries_w${weekOf(new Date())}`;
      for (const [table, key] of [["deliveries", "id"], ["delivery_payloads", "delivery_id"]] as const) {
        const [row] = await sql`select tableoid::regclass::text as partition from ${sql(table)} where ${sql(key)} = ${fresh!.id}`;
        expect(row?.partition, table).toBe(week.replace("deliveries", table));
      }
      // The attempts' sequence goes on from the legacy rows.
      const [attempt] = await sql`insert into attempts (organization_id, delivery_id, number, trigger, started_at)
        values ('org_u', ${fresh!.id}, 1, 'auto', now()) returning id, tableoid::regclass::text as partition`;
      expect(Number(attempt!.id)).toBeGreaterThan(maxAttemptId);
      expect(attempt!.partition).toBe(week.replace("deliveries", "attempts"));

      // Deleting a delivery takes its payload, attempts and key with it, in either layout: its event id is new again.
      const legacyDead = before.deliveries.find((row) => row.endpoint_id === "ep_u_a" && row.status === "dead" && row.attempt_count > 0)!;
      await sql`delete from deliveries where id in (${legacyDead.id}, ${fresh!.id})`;
      for (const id of [legacyDead.id, fresh!.id]) {
        expect(await sql`select 1 from delivery_payloads where delivery_id = ${id}`, id).toHaveLength(0);
        expect(await sql`select 1 from attempts where delivery_id = ${id}`, id).toHaveLength(0);
        expect(await sql`select 1 from delivery_keys where delivery_id = ${id}`, id).toHaveLength(0);
      }
      expect((await committer.store(webhook(legacyDead.external_id)))?.duplicate).toBe(false);
      expect(Number((await sql`select count(*) as n from delivery_keys`)[0]!.n)).toBe(before.deliveries.length);
    } finally {
      await sql.end();
    }
  });
});

/** The Monday (UTC) of `at`'s week, as partitions are named: YYYYMMDD. */
function weekOf(at: Date): string {
  const monday = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - ((at.getUTCDay() + 6) % 7)));
  return monday.toISOString().slice(0, 10).replaceAll("-", "");
}
