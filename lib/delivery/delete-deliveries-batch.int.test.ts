// A batch delete (retention's row deletes, purges) takes each deleted delivery's payload and dedupe key by
// probing for it: the trigger that deletes them once read the whole of delivery_payloads and delivery_keys per
// batch (a hash join, chosen while the tables were not yet huge), so purging an endpoint read every stored
// payload once a batch (migration 0029).
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { countingReads } from "@/test/counting-reads";
import { useTestDatabase } from "@/test/db";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { deleteDeliveriesBatch } from "./delete-deliveries-batch";

useTestDatabase();

const STORED = 20_000;
const BATCH = 500;

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
let endpointId = "";
beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  org = await createOrganizationFixture();
  endpointId = (await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook")).id;
  await getSql()`
    with d as (
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes)
      select 'dlv_batch_' || lpad(n::text, 6, '0'), ${org.organizationId}, ${endpointId}, 'dst_' || substr(${endpointId}, 4), 'evt_' || n, 'delivered', 2
      from generate_series(1, ${STORED}::int) n returning id, organization_id, endpoint_id, external_id),
    k as (insert into delivery_keys (endpoint_id, external_id, delivery_id) select endpoint_id, external_id, id from d)
    insert into delivery_payloads (delivery_id, organization_id, headers, body) select id, organization_id, '{}', '\\x7b7d' from d`;
  await getSql()`analyze deliveries`;
  await getSql()`analyze delivery_payloads`;
  await getSql()`analyze delivery_keys`;
}, 60_000);

describe("a batch delete", () => {
  it("reads only the deleted deliveries' own payloads and keys, not every stored one", async () => {
    const where = sql`d.endpoint_id = ${endpointId}`;
    const payloads = await countingReads(org.ctx, "delivery_payloads", (ctx) => deleteDeliveriesBatch(ctx.db, where, BATCH));
    expect(payloads.result).toBe(BATCH);
    const keys = await countingReads(org.ctx, "delivery_keys", (ctx) => deleteDeliveriesBatch(ctx.db, where, BATCH));
    expect(keys.result).toBe(BATCH);
    // Each deleted one's row, found by its key; a whole-table read would be the STORED rows.
    expect(payloads.entries).toBeLessThanOrEqual(BATCH);
    expect(keys.entries).toBeLessThanOrEqual(BATCH);

    const [left] = await getSql()<{ deliveries: number; payloads: number; keys: number }[]>`
      select (select count(*)::int from deliveries where endpoint_id = ${endpointId}) as deliveries,
        (select count(*)::int from delivery_payloads where organization_id = ${org.organizationId}) as payloads,
        (select count(*)::int from delivery_keys where endpoint_id = ${endpointId}) as keys`;
    expect(left).toEqual({ deliveries: STORED - 2 * BATCH, payloads: STORED - 2 * BATCH, keys: STORED - 2 * BATCH });
  });
});
