// The Destinations REST API (API.md "Destinations") over its route handlers: what deleting a destination other
// than the default does to it and to its deliveries (its job's verb, end-destination-deliveries, run here
// directly, step by step).
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createCtx } from "@/lib/context";
import { END_DESTINATION_BATCH_SIZE, endDestinationDeliveries } from "@/lib/delivery/end-destination-deliveries";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { newId } from "@/lib/ids";
import { useTestDatabase } from "@/test/db";
import { auditOf, create, endpointOf, get, insertDeliveries, list, patch, remove, statusesOf, withJobs } from "@/test/destination-api";
import { createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;
let acme: Org;
let globex: Org;
beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
  globex = await createOrganizationFixture("Globex");
});

describe("deleting a destination other than the default", () => {
  it("hides it at once, buries its waiting deliveries in bounded steps, and removes its row once none is open", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    const defaultId = defaultDestinationId(endpointId);
    const doomed = (await create(acme.apiKey, endpointId, { name: "doomed", url: "http://127.0.0.1:9/d" })).body.id as string;
    const kept = (await create(acme.apiKey, endpointId, { name: "kept", url: "http://127.0.0.1:9/k" })).body.id as string;

    const waiting = Array.from({ length: END_DESTINATION_BATCH_SIZE + 2 }, () => newId("dlv"));
    const [retrying, parked, inFlight, delivered, dead, keptPending, defaultPending] = Array.from({ length: 7 }, () => newId("dlv"));
    await insertDeliveries(acme.organizationId, [
      ...waiting.map((id) => ({ id, endpointId, destinationId: doomed, status: "pending" as const, parked: true })),
      { id: retrying!, endpointId, destinationId: doomed, status: "pending", lastError: "HTTP 503 Service Unavailable", job: true },
      { id: parked!, endpointId, destinationId: doomed, status: "pending", parked: true },
      { id: inFlight!, endpointId, destinationId: doomed, status: "delivering" },
      { id: delivered!, endpointId, destinationId: doomed, status: "delivered" },
      { id: dead!, endpointId, destinationId: doomed, status: "dead", lastError: "HTTP 410 Gone" },
      { id: keptPending!, endpointId, destinationId: kept, status: "pending", job: true },
      { id: defaultPending!, endpointId, destinationId: defaultId, status: "pending", job: true },
    ]);
    expect(await withJobs([retrying!, keptPending!, defaultPending!])).toHaveLength(3);

    const deleted = await remove(acme.apiKey, endpointId, doomed);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    // Hidden at once: not found, not listed, not deleted twice; paused for the engine; its job queued in the same commit.
    expect((await get(acme.apiKey, endpointId, doomed)).status).toBe(404);
    expect((await patch(acme.apiKey, endpointId, doomed, { paused: false })).status).toBe(404);
    expect((await remove(acme.apiKey, endpointId, doomed)).status).toBe(404);
    expect((await list(acme.apiKey, endpointId)).body.data.map((d: { id: string }) => d.id).sort()).toEqual([defaultId, kept].sort());
    const [row] = await getSql()`select deleted_at, paused from destinations where id = ${doomed}`;
    expect(row!.deleted_at).not.toBeNull();
    expect(row!.paused).toBe(true);
    const queued = await getSql()`select payload from graphile_worker._private_jobs where key = ${`end-destination-deliveries:${doomed}`}`;
    expect(queued.map((j) => j.payload)).toEqual([{ organizationId: acme.organizationId, destinationId: doomed }]);
    expect((await auditOf(acme.organizationId, doomed)).map((e) => e.action)).toEqual(["destination.created", "destination.deleted"]);

    // The job's verb, run by hand: a page of at most END_DESTINATION_BATCH_SIZE per step.
    const ctx = createCtx(acme.organizationId, { type: "system" });
    const step = () => endDestinationDeliveries({ ctx, input: { destinationId: doomed } });
    const first = await step();
    expect(first).toEqual({ state: "more", buried: END_DESTINATION_BATCH_SIZE });
    let next = await step();
    let buried = first.state === "more" ? first.buried : 0;
    for (let i = 0; next.state === "more" && i < 5; i++) {
      buried += next.buried;
      next = await step();
    }
    expect(buried).toBe(waiting.length + 2);
    // The attempt in flight holds the row.
    expect(next).toEqual({ state: "later", runAt: expect.any(Date) });

    const after = await statusesOf([...waiting, retrying!, parked!, inFlight!, delivered!, dead!, keptPending!, defaultPending!]);
    for (const id of [...waiting, parked!]) expect(after[id]).toEqual(["dead", "buried on request: its destination was deleted"]);
    expect(after[retrying!]).toEqual(["dead", "buried on request: its destination was deleted; last error: HTTP 503 Service Unavailable"]);
    expect(after[inFlight!]![0]).toBe("delivering");
    expect(after[delivered!]).toEqual(["delivered", null]);
    expect(after[dead!]).toEqual(["dead", "HTTP 410 Gone"]);
    expect(after[keptPending!]).toEqual(["pending", null]);
    expect(after[defaultPending!]).toEqual(["pending", null]);
    // Their waiting jobs went with them; the other destinations' stayed.
    expect(await withJobs([retrying!, keptPending!, defaultPending!])).toEqual([defaultPending!, keptPending!].sort());
    expect((await getSql()`select 1 from parked_deliveries where destination_id = ${doomed}`)).toHaveLength(0);

    // The attempt ends (a retry): pending again, so buried; then only the grace keeps the row.
    await getSql()`update deliveries set status = 'pending', claimed_by_job = null, lease_expires_at = null, last_error = 'HTTP 500' where id = ${inFlight!}`;
    expect(await step()).toEqual({ state: "more", buried: 1 });
    expect((await statusesOf([inFlight!]))[inFlight!]).toEqual(["dead", "buried on request: its destination was deleted; last error: HTTP 500"]);
    const graced = await step();
    expect(graced).toEqual({ state: "later", runAt: expect.any(Date) });
    if (graced.state === "later") expect(graced.runAt.getTime() - Date.now()).toBeGreaterThan(30_000);
    expect(await getSql()`select id from destinations where id = ${doomed}`).toHaveLength(1);

    // Past the grace, nothing open: the row goes; its settled deliveries stay.
    await getSql()`update destinations set deleted_at = deleted_at - interval '2 minutes' where id = ${doomed}`;
    expect(await step()).toEqual({ state: "removed" });
    expect(await getSql()`select id from destinations where id = ${doomed}`).toHaveLength(0);
    expect(await step()).toEqual({ state: "gone" });
    expect((await getSql()`select count(*)::int as n from deliveries where destination_id = ${doomed}`)[0]!.n).toBe(waiting.length + 5);
    expect((await list(acme.apiKey, endpointId)).body.data).toHaveLength(2);
  });

  it("never touches a destination that is not deleted, nor another organization's", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    const live = (await create(acme.apiKey, endpointId, { name: "live", url: "http://127.0.0.1:9/l" })).body.id as string;
    const pending = newId("dlv");
    await insertDeliveries(acme.organizationId, [{ id: pending, endpointId, destinationId: live, status: "pending", job: true }]);
    expect(await endDestinationDeliveries({ ctx: createCtx(acme.organizationId, { type: "system" }), input: { destinationId: live } })).toEqual({ state: "gone" });
    expect(await remove(acme.apiKey, endpointId, live)).toMatchObject({ status: 204 });
    expect(await endDestinationDeliveries({ ctx: createCtx(globex.organizationId, { type: "system" }), input: { destinationId: live } })).toEqual({ state: "gone" });
    expect((await statusesOf([pending]))[pending]).toEqual(["pending", null]);
    expect(await withJobs([pending])).toEqual([pending]);
  });
});
