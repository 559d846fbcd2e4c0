// On a server with autovacuum off (this one's, and CI's), the worker vacuums and analyses our tables
// past autovacuum's thresholds, and leaves the others alone.
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { configFrom } from "@/lib/config/config";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { useTestDatabase } from "@/test/db";
import type { JobHelpers } from "graphile-worker";
import { vacuumOwnTablesTask } from "@/jobs/vacuum-own-tables";
import { ownVacuumSettings, vacuumOwnTables } from "./vacuum-own-tables";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

// deliveries is partitioned (db/schema/deliveries.ts): VACUUM works on its partitions, and the rows below,
// with hand-made ids of no week (dlv_vacuum_…), are in the default one.
const DELIVERIES = "deliveries_default";

interface TableStats { n_dead_tup: number; n_mod_since_analyze: number; last_vacuum: Date | null; last_analyze: Date | null }

async function stats(table: string): Promise<TableStats> {
  const [row] = await getSql()<TableStats[]>`
    select n_dead_tup::int, n_mod_since_analyze::int, last_vacuum, last_analyze from pg_stat_user_tables where schemaname = 'public' and relname = ${table}`;
  return row!;
}

/** Backends report their table counters at most once a second: wait until they show. */
async function until<T>(what: string, probe: () => Promise<T | false>): Promise<T> {
  for (const deadline = Date.now() + 20_000; ; await new Promise((resolve) => setTimeout(resolve, 200))) {
    const value = await probe();
    if (value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

describe("vacuum-own-tables", () => {
  beforeAll(async () => {
    const [{ autovacuum }] = await getSql()<{ autovacuum: string }[]>`select current_setting('autovacuum') as autovacuum`;
    // The precondition of everything below: on a server whose autovacuum runs, the job leaves our tables to it.
    expect(autovacuum).toBe("off");
  });

  it("vacuums a table past autovacuum's dead-tuple threshold and leaves one under it alone", { timeout: 60_000 }, async () => {
    const { ctx } = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(ctx, "http://127.0.0.1:9/hook");
    const sql = getSql();
    // 400 settled deliveries, then gone: 400 dead tuples, past 50 + 0.2 × (at most a handful of) live ones.
    await sql`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes)
      select 'dlv_vacuum_' || n, ${ctx.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), 'evt_vacuum_' || n, 'delivered', 2
      from generate_series(1, 400) n`;
    await sql`delete from deliveries where endpoint_id = ${endpoint.id}`;
    const before = await until("the dead tuples to be counted", async () => {
      const row = await stats(DELIVERIES);
      return row.n_dead_tup >= 400 && row;
    });
    expect(before.last_vacuum).toBeNull();
    // api_keys: the fixture's one key, far under every threshold.
    const apiKeysBefore = await stats("api_keys");
    expect(apiKeysBefore.n_mod_since_analyze).toBeLessThan(50);

    const lines: string[] = [];
    const pass = await vacuumOwnTables({ settings: ownVacuumSettings(configFrom({})), log: (line) => lines.push(line) });

    expect(pass.busy).toBe(false);
    expect(pass.maintained).toContainEqual(expect.objectContaining({ table: `public.${DELIVERIES}`, action: "vacuum", skipped: false }));
    expect(pass.maintained.map((m) => m.table)).not.toContain("public.api_keys");
    expect(lines.some((line) => /^vacuumed and analysed public\.deliveries_default: \d+ dead tuples, \d+ ms$/.test(line))).toBe(true);
    const after = await until("the vacuum to show", async () => {
      const row = await stats(DELIVERIES);
      return row.last_vacuum !== null && row;
    });
    expect(after.n_dead_tup).toBeLessThan(before.n_dead_tup);
    expect(after.last_analyze).not.toBeNull();
    const apiKeysAfter = await stats("api_keys");
    expect(apiKeysAfter.last_vacuum).toBeNull();
    expect(apiKeysAfter.last_analyze).toBeNull();
  });

  it("comes back in 15 s, one waiting job however many runs ask", async () => {
    const helpers = { abortSignal: undefined } as unknown as JobHelpers;
    const before = Date.now();
    await vacuumOwnTablesTask({}, helpers);
    await vacuumOwnTablesTask({}, helpers);
    const jobs = await getSql()<{ run_at: Date }[]>`select run_at from graphile_worker.jobs where task_identifier = 'vacuum-own-tables' and key = 'vacuum-own-tables'`;
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.run_at.getTime()).toBeGreaterThan(before + 10_000);
    expect(jobs[0]!.run_at.getTime()).toBeLessThan(Date.now() + 20_000);
  });

  it("stops a VACUUM a shutting-down worker cancels without failing the job", { timeout: 60_000 }, async () => {
    const { ctx } = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(ctx, "http://127.0.0.1:9/hook");
    const sql = getSql();
    // Enough dead tuples that the paced VACUUM runs long enough to be seen running (last_error pads each
    // row as a 300-byte body did before payloads left the row).
    // Seeding is no query of the product's: the app pool's statement timeout cut it off on a busy machine.
    await sql.begin(async (tx) => {
      await tx`set local statement_timeout = 0`;
      await tx`
        insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, last_error)
        select 'dlv_vacuum_cancel_' || n, ${ctx.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), 'evt_cancel_' || n, 'delivered', 300, repeat('x', 300)
        from generate_series(1, 150000) n`;
    });
    await sql.begin(async (tx) => {
      await tx`set local statement_timeout = 0`;
      await tx`delete from deliveries where endpoint_id = ${endpoint.id}`;
    });
    await until("the dead tuples to be counted", async () => (await stats(DELIVERIES)).n_dead_tup >= 150_000);

    const shutdown = new AbortController();
    const lines: string[] = [];
    const passing = vacuumOwnTables({ settings: ownVacuumSettings(configFrom({})), signal: shutdown.signal, log: (line) => lines.push(line) });
    await until("the VACUUM of deliveries to run", async () => {
      const [row] = await sql`select 1 from pg_stat_activity where application_name = 'webhook-inbox vacuum-own-tables' and state = 'active' and query ilike 'vacuum%deliveries%'`;
      return Boolean(row) || false;
    });
    shutdown.abort();
    const pass = await passing;

    expect(pass.maintained.map((m) => m.table)).not.toContain(`public.${DELIVERIES}`);
    expect(pass.left).toBeGreaterThan(0);
    expect(lines).toContain(`public.${DELIVERIES}: vacuum stopped, the worker is shutting down; a later pass does it`);
  });

  it("does nothing when told to leave vacuuming to the operator", async () => {
    const pass = await vacuumOwnTables({ settings: ownVacuumSettings(configFrom({ VACUUM_OWN_TABLES: "off" })) });
    expect(pass).toEqual({ looked: 0, maintained: [], busy: false, left: 0 });
  });
});
