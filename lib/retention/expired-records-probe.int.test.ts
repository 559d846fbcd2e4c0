// The retention sweep's look for organizations with something expired (every minute, over every organization)
// walks each one's oldest rows through an index and stops. An organization with a big history and nothing
// expired must not make it scan the table: the planner, estimating a third of the rows past an unknown cutoff,
// chose a sequential scan per organization (bench:dashboard's 10M deliveries: 1.3 s a minute for 3
// organizations, a whole table per organization with nothing expired) and a hashed scan of all of audit_log.
import { beforeAll, expect, it } from "vitest";
import { getDb, getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { listOrganizationsWithExpiredRecords } from "./list-organizations-with-expired-records";
import { leavesOf } from "@/test/counting-reads";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

// The tables given a history here; the others are empty, where a scan is the cheapest plan and costs nothing.
const TABLES = ["deliveries", "audit_log"];
let expired: string;
let recent: string;

beforeAll(async () => {
  const sql = getSql();
  const history = async (name: string, age: string) => {
    const org = await createOrganizationFixture(name);
    const endpointId = (await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook")).id;
    const prefix = name.slice(0, 1);
    await sql`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, updated_at, pending_since)
      select 'dlv_' || ${prefix} || lpad(g::text, 24, '0'), ${org.organizationId}, ${endpointId}, 'dst_' || substr(${endpointId}, 4), 'evt_' || g, 'delivered', 2,
             now() - ${age}::interval - g * interval '1 second', now() - ${age}::interval - g * interval '1 second', now()
      from generate_series(1, 20000) g`;
    await sql`
      insert into audit_log (id, organization_id, at, action, actor_type, target_type, target_id)
      select 'aud_' || ${prefix} || lpad(g::text, 24, '0'), ${org.organizationId}, now() - g * interval '1 second', 'endpoint.updated', 'system', 'endpoint', ${endpointId}
      from generate_series(1, 20000) g`;
    return org.organizationId;
  };
  recent = await history("Recent", "1 hour");
  expired = await history("Expired", "40 days");
  for (const table of TABLES) await sql.unsafe(`analyze ${table}`);
});

it("finds the organization with expired deliveries, and scans no table to rule out the other", async () => {
  const { found, seqScans } = await getDb().transaction(async (tx) => {
    const found = await listOrganizationsWithExpiredRecords(tx);
    // This transaction's own counts, not yet flushed to pg_stat_user_tables.
    const scans = await tx.execute<{ relname: string; seq_scan: string }>(
      // Each table's own relations (deliveries': its partitions; an empty one's scan reads no row and is not counted).
      TABLES.map((t) => `select relname, seq_scan from pg_stat_xact_user_tables where relid in ${leavesOf(t)} and seq_tup_read > 0`).join(" union all "));
    return { found, seqScans: scans.map((s) => `${s.relname}: ${s.seq_scan}`) };
  });
  expect(found).toEqual([expired]);
  expect(found).not.toContain(recent);
  expect(seqScans).toEqual([]);
});
