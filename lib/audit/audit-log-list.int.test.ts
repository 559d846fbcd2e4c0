// The audit log's list (API.md "Audit log"): newest first with a cursor, its filters, its refusals, no way to
// change an entry; then retention at 365 days and the append-only trigger. What each change records:
// audit-log.int.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import * as auditRoute from "@/app/api/v1/audit-log/route";
import { getSql } from "@/db";
import { newId } from "@/lib/ids";
import { applyRetention } from "@/lib/retention/apply-retention";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import type { AuditEntryView } from "./list-audit-log";

useTestDatabase();

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;

async function auditLogOf(apiKey: string, query = ""): Promise<{ status: number; body: { data: AuditEntryView[]; nextCursor: string | null; error?: { code: string } } }> {
  return callRoute(auditRoute.GET, { apiKey, path: `/api/v1/audit-log?limit=200${query}` });
}

describe("GET /api/v1/audit-log", () => {
  let initech: Org;
  const rows: Array<{ id: string; at: Date; action: string; actorType: string; actorId: string | null }> = [];
  beforeAll(async () => {
    initech = await createOrganizationFixture("Initech");
    const base = Date.parse("2026-06-01T00:00:00.000Z");
    const actions = ["endpoint.created", "delivery.replayed", "api_key.created"];
    const actors: Array<[string, string | null]> = [["user", initech.userId], ["api_key", "key_0000000000000000000000001"], ["system", null]];
    for (let i = 0; i < 12; i++) {
      // Two entries share each instant: the id breaks the tie.
      const at = new Date(base + Math.floor(i / 2) * 60_000);
      const [actorType, actorId] = actors[i % 3]!;
      const row = { id: newId("aud"), at, action: actions[i % 3]!, actorType, actorId };
      rows.push(row);
      await getSql()`
        insert into audit_log (id, organization_id, at, action, actor_type, actor_id, target_type, target_id, details)
        values (${row.id}, ${initech.organizationId}, ${at}, ${row.action}, ${actorType}, ${actorId}, 'organization', ${initech.organizationId}, ${JSON.stringify({ i })}::jsonb)`;
    }
  });
  const seeded = (query: string) => auditLogOf(initech.apiKey, query).then((res) => res.body.data.filter((entry) => entry.at.startsWith("2026-06-01")));
  const newestFirst = () => [...rows].sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : -1));

  it("pages newest first with a cursor, every entry once", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Awaited<ReturnType<typeof auditLogOf>> = await callRoute(auditRoute.GET, {
        apiKey: initech.apiKey, path: `/api/v1/audit-log?limit=5&until=2026-06-02T00:00:00Z${cursor ? `&cursor=${cursor}` : ""}`,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(5);
      seen.push(...res.body.data.map((entry) => entry.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(newestFirst().map((row) => row.id));
  });

  it("filters by action, actor type, actor id and time", async () => {
    const ids = (entries: AuditEntryView[]) => entries.map((entry) => entry.id);
    const expectIds = (filter: (row: (typeof rows)[number]) => boolean) => newestFirst().filter(filter).map((row) => row.id);
    expect(ids(await seeded("&action=delivery.replayed"))).toEqual(expectIds((row) => row.action === "delivery.replayed"));
    expect(ids(await seeded("&actorType=system"))).toEqual(expectIds((row) => row.actorType === "system"));
    expect(ids(await seeded(`&actorId=${initech.userId}`))).toEqual(expectIds((row) => row.actorId === initech.userId));
    expect(ids(await seeded("&actorType=api_key&action=endpoint.created"))).toEqual([]);
    const window = "&since=2026-06-01T00:02:00Z&until=2026-06-01T00:03:00Z";
    expect(ids(await seeded(window))).toEqual(expectIds((row) => row.at >= new Date("2026-06-01T00:02:00Z") && row.at <= new Date("2026-06-01T00:03:00Z")));
    expect((await seeded(window)).length).toBe(4);
    const [entry] = await seeded("&action=delivery.replayed&actorType=api_key");
    expect(entry).toEqual({
      id: expect.any(String), at: expect.stringMatching(/^2026-06-01T00:0\d:00.000Z$/), action: "delivery.replayed",
      actor: { type: "api_key", id: "key_0000000000000000000000001", label: null }, target: { type: "organization", id: initech.organizationId },
      details: { i: expect.any(Number) }, ip: null,
    });
  });

  it("refuses a bad filter, limit or cursor (400), and answers 401 without a key", async () => {
    for (const query of ["action=endpoint.exploded", "actorType=robot", "since=yesterday", "cursor=bm9wZQ", "limit=0", "limit=201"]) {
      const res = await callRoute(auditRoute.GET, { apiKey: initech.apiKey, path: `/api/v1/audit-log?${query}` });
      expect(res.status, query).toBe(400);
      expect(res.body.error?.code, query).toBe("validation_error");
    }
    expect((await callRoute(auditRoute.GET, { path: "/api/v1/audit-log" })).status).toBe(401);
  });

  it("offers no way to change or delete an entry", () => {
    expect(Object.keys(auditRoute)).toEqual(["GET"]);
  });
});

describe("retention and the append-only trigger", () => {
  it("the sweep deletes entries older than 365 days only", async () => {
    const hooli = await createOrganizationFixture("Hooli");
    const insert = (days: number) => {
      const id = newId("aud");
      return getSql()`
        insert into audit_log (id, organization_id, at, action, actor_type, target_type, target_id)
        values (${id}, ${hooli.organizationId}, now() - make_interval(days => ${days}::int), 'organization.updated', 'system', 'organization', ${hooli.organizationId})`.then(() => id);
    };
    const expired = [await insert(366), await insert(400)];
    const kept = [await insert(364), await insert(1)];
    const run = await applyRetention({ settings: { batchSize: 1000, runMs: 60_000, rowsPerRun: 1_000_000, pauseFactor: 0 } });
    expect(run.ran).toBe(true);
    expect(run.deleted.auditEntries).toBeGreaterThanOrEqual(2);
    const left = await getSql()<{ id: string }[]>`select id from audit_log where id = any(${[...expired, ...kept]})`;
    expect(left.map((row) => row.id).sort()).toEqual([...kept].sort());
  });

  it("refuses UPDATE and DELETE of an entry through SQL", async () => {
    const acme = await createOrganizationFixture("Acme");
    const [entry] = await getSql()<{ id: string }[]>`
      insert into audit_log (id, organization_id, action, actor_type, target_type, target_id)
      values (${newId("aud")}, ${acme.organizationId}, 'organization.updated', 'system', 'organization', ${acme.organizationId})
      returning id`;
    await expect(getSql()`update audit_log set action = 'endpoint.deleted' where id = ${entry!.id}`).rejects.toThrow(/cannot be changed or deleted/);
    await expect(getSql()`update audit_log set at = now() - interval '400 days' where id = ${entry!.id}`).rejects.toThrow(/cannot be changed or deleted/);
    await expect(getSql()`delete from audit_log where id = ${entry!.id}`).rejects.toThrow(/cannot be changed or deleted/);
    await expect(getSql()`delete from audit_log where organization_id = ${acme.organizationId}`).rejects.toThrow(/cannot be changed or deleted/);
    expect(await getSql()`select 1 from audit_log where id = ${entry!.id}`).toHaveLength(1);
  });
});
