// Issue #41, a low item: a bulk replay or bury walks its selection in pages of BULK_CHUNK, never holding every
// matching id at once; each delivery is acted on once, ties in received_at included, and what arrives during
// the walk is not part of it.
import { describe, expect, it } from "vitest";
import * as replayMany from "@/app/api/v1/deliveries/replay/route";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { BULK_CHUNK, bulkSelection, selectionPages } from "./bulk-selection";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

const TOTAL = 2 * BULK_CHUNK + 345;

async function deadDeliveries(organizationId: string, endpointId: string, tag: string) {
  // Three deliveries share each received_at: a page boundary falls inside a tie.
  await getSql()`
    insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, event_type, status, size_bytes, received_at)
    select 'dlv_' || ${tag} || lpad(to_hex(n), 21, '0'), ${organizationId}, ${endpointId}, 'dst_' || substr(${endpointId}, 4), 'evt_' || ${tag} || n, 'bulk.test', 'dead', 2,
           now() - interval '1 hour' + make_interval(secs => n / 3)
    from generate_series(1, ${TOTAL}) as n`;
}

describe("a bulk selection is read in pages", () => {
  it("yields pages of at most BULK_CHUNK ids, newest first, each id once, and only what was received before the call", async () => {
    const acme = await createOrganizationFixture("Acme Pages");
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/hook");
    await deadDeliveries(acme.organizationId, endpoint.id, "aaaa");
    const { where } = await bulkSelection(acme.ctx, { endpointId: endpoint.id }, []);
    // Received after the selection was made: not part of it.
    await getSql()`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, event_type, status, size_bytes, received_at)
      values ('dlv_zzzzlate00000000000000000', ${acme.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), 'evt_late', 'bulk.test', 'dead', 2, now() + interval '1 second')`;

    const pages: { ids: string[]; last: boolean }[] = [];
    for await (const page of selectionPages(acme.ctx, where)) pages.push(page);
    expect(pages.map((page) => page.ids.length)).toEqual([BULK_CHUNK, BULK_CHUNK, 345]);
    expect(pages.map((page) => page.last)).toEqual([false, false, true]);
    const ids = pages.flatMap((page) => page.ids);
    expect(new Set(ids).size).toBe(TOTAL);
    expect(ids).not.toContain("dlv_zzzzlate00000000000000000");
    const newestFirst = await getSql()`
      select id from deliveries where endpoint_id = ${endpoint.id} and external_id <> 'evt_late' order by received_at desc, id desc`;
    expect(ids).toEqual(newestFirst.map((row) => row.id));
  });

  it("a bulk replay over several pages replays each delivery once and records the whole count", async () => {
    const acme = await createOrganizationFixture("Acme Replay Pages");
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/hook");
    await deadDeliveries(acme.organizationId, endpoint.id, "bbbb");
    const res = await callRoute(replayMany.POST, { method: "POST", apiKey: acme.apiKey, path: "/api/v1/deliveries/replay", body: { endpointId: endpoint.id } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ count: TOTAL });
    const [counts] = await getSql()`
      select count(*) filter (where status = 'pending')::int as pending, count(*)::int as total from deliveries where endpoint_id = ${endpoint.id}`;
    expect(counts).toEqual({ pending: TOTAL, total: TOTAL });
    const [audit] = await getSql()`select details from audit_log where organization_id = ${acme.organizationId} and action = 'deliveries.replayed'`;
    expect(audit!.details).toEqual({ filter: { endpointId: endpoint.id }, count: TOTAL });
  });
});
