// The Destinations REST API (API.md "Destinations") over its route handlers, who may do what: roles, tenancy
// (another organization's, or another endpoint's, is 404), the default destination (never deleted, changed by
// PATCH like any other) and the per-endpoint limit.
import { beforeAll, describe, expect, it } from "vitest";
import * as endpointItem from "@/app/api/v1/endpoints/[id]/route";
import { getSql } from "@/db";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { newId } from "@/lib/ids";
import { useTestDatabase } from "@/test/db";
import { auditOf, create, destinationRows, endpointOf, get, insertDeliveries, list, OUTBOUND, patch, remove, withJobs } from "@/test/destination-api";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;
let acme: Org;
let globex: Org;
let acmeViewer: string;
let acmeAdmin: string;
beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
  globex = await createOrganizationFixture("Globex");
  acmeViewer = (await createApiKey({ ctx: acme.ctx, input: { name: "viewer", role: "viewer" } })).apiKey;
  acmeAdmin = (await createApiKey({ ctx: acme.ctx, input: { name: "admin", role: "admin" } })).apiKey;
});

describe("roles", () => {
  it("lets a viewer read and refuses (403) its every change, which changes nothing; an admin may change", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    const id = (await create(acme.apiKey, endpointId, { name: "h", url: "http://127.0.0.1:9/h" })).body.id as string;
    const before = await destinationRows(endpointId);
    expect((await list(acmeViewer, endpointId)).status).toBe(200);
    expect((await get(acmeViewer, endpointId, id)).body.name).toBe("h");
    const refused = [
      await create(acmeViewer, endpointId, { name: "v", url: "http://127.0.0.1:9/v" }),
      await patch(acmeViewer, endpointId, id, { paused: true }),
      await remove(acmeViewer, endpointId, id),
      await remove(acmeViewer, endpointId, defaultDestinationId(endpointId)),
    ];
    expect(refused.map((r) => [r.status, r.body.error.code])).toEqual(Array(4).fill([403, "forbidden"]));
    expect(await destinationRows(endpointId)).toEqual(before);

    const byAdmin = await create(acmeAdmin, endpointId, { name: "a", url: "http://127.0.0.1:9/a" });
    expect(byAdmin.status).toBe(201);
    expect((await patch(acmeAdmin, endpointId, byAdmin.body.id, { paused: true })).body.paused).toBe(true);
    expect((await remove(acmeAdmin, endpointId, byAdmin.body.id)).status).toBe(204);
  });
});

describe("tenancy", () => {
  it("answers 404 for another organization's endpoint and destination, and for another endpoint's destination, changing nothing", async () => {
    const theirs = await endpointOf(globex.apiKey);
    const theirDestination = (await create(globex.apiKey, theirs, { name: "theirs", url: "http://127.0.0.1:9/t" })).body.id as string;
    const mine = await endpointOf(acme.apiKey);
    const before = await destinationRows(theirs);
    const answers = [
      await list(acme.apiKey, theirs),
      await create(acme.apiKey, theirs, { name: "mine now", url: "http://127.0.0.1:9/m" }),
      await get(acme.apiKey, theirs, theirDestination),
      await patch(acme.apiKey, theirs, theirDestination, { name: "mine now" }),
      await remove(acme.apiKey, theirs, theirDestination),
      await get(acme.apiKey, theirs, defaultDestinationId(theirs)),
      await patch(acme.apiKey, theirs, defaultDestinationId(theirs), { paused: true }),
      // Their destination under my endpoint's id, and my endpoint's default under theirs.
      await get(acme.apiKey, mine, theirDestination),
      await patch(acme.apiKey, mine, theirDestination, { name: "mine now" }),
      await remove(acme.apiKey, mine, theirDestination),
      await get(acme.apiKey, theirs, defaultDestinationId(mine)),
    ];
    expect(answers.map((a) => [a.status, a.body.error.code])).toEqual(Array(answers.length).fill([404, "not_found"]));
    expect(await destinationRows(theirs)).toEqual(before);
    expect(await destinationRows(mine)).toHaveLength(1);

    // In one organization, a destination is found under its own endpoint only.
    const other = await endpointOf(acme.apiKey);
    const onMine = (await create(acme.apiKey, mine, { name: "m", url: "http://127.0.0.1:9/m" })).body.id as string;
    expect((await get(acme.apiKey, other, onMine)).status).toBe(404);
    expect((await patch(acme.apiKey, other, onMine, { paused: true })).status).toBe(404);
    expect((await remove(acme.apiKey, other, onMine)).status).toBe(404);
    expect((await get(acme.apiKey, mine, onMine)).body.paused).toBe(false);
    // Ids not in our format are 404 before any query.
    expect((await get(acme.apiKey, mine, "ep_nope")).status).toBe(404);
    expect((await list(acme.apiKey, "dst_nope")).status).toBe(404);
  });
});

describe("the default destination", () => {
  it("cannot be deleted (409 default_destination), even beside others", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    const other = await create(acme.apiKey, endpointId, { name: "other", url: "http://127.0.0.1:9/o" });
    const beside = await remove(acme.apiKey, endpointId, defaultDestinationId(endpointId));
    expect(beside.status).toBe(409);
    expect(beside.body.error).toEqual({ code: "default_destination", message: expect.stringMatching(/delete the endpoint instead/) });
    expect((await remove(acme.apiKey, endpointId, other.body.id)).status).toBe(204);
    const alone = await remove(acme.apiKey, endpointId, defaultDestinationId(endpointId));
    expect(alone.status).toBe(409);
    expect(alone.body.error.code).toBe("default_destination");
    expect((await get(acme.apiKey, endpointId, defaultDestinationId(endpointId))).status).toBe(200);
    expect((await auditOf(acme.organizationId, defaultDestinationId(endpointId))).map((e) => e.action)).toEqual([]);
  });

  it("takes a PATCH, which the endpoint shows as its own fields; an unpause wakes its parked deliveries", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    const id = defaultDestinationId(endpointId);
    const changed = await patch(acme.apiKey, endpointId, id, { name: "Primary", url: "http://127.0.0.1:9/moved", paused: true, maxAttempts: 3, retryBaseSeconds: 9, timeoutMs: 1000, outboundSecret: OUTBOUND });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ id, default: true, name: "Primary", url: "http://127.0.0.1:9/moved", paused: true, maxAttempts: 3, signsOutbound: true });
    const endpoint = await callRoute(endpointItem.GET, { apiKey: acme.apiKey, params: { id: endpointId } });
    expect(endpoint.body).toMatchObject({ name: "Orders", destinationUrl: "http://127.0.0.1:9/moved", paused: true, maxAttempts: 3, retryBaseSeconds: 9, timeoutMs: 1000, signsOutbound: true });

    // What ingest stores for a paused destination: pending, parked, no job.
    const deliveryId = newId("dlv");
    await insertDeliveries(acme.organizationId, [{ id: deliveryId, endpointId, destinationId: id, status: "pending", parked: true }]);
    expect(await withJobs([deliveryId])).toEqual([]);
    const resumed = await patch(acme.apiKey, endpointId, id, { paused: false });
    expect(resumed.body.paused).toBe(false);
    expect((await callRoute(endpointItem.GET, { apiKey: acme.apiKey, params: { id: endpointId } })).body.paused).toBe(false);
    expect(await withJobs([deliveryId])).toEqual([deliveryId]);
    const [row] = await getSql()`select parked_at from deliveries where id = ${deliveryId}`;
    expect(row!.parked_at).toBeNull();
  });
});

describe("the per-endpoint limit", () => {
  it("refuses one destination more than ENDPOINT_MAX_DESTINATIONS (the default one counts; a deleted one does not)", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    process.env.ENDPOINT_MAX_DESTINATIONS = "3";
    try {
      const first = await create(acme.apiKey, endpointId, { name: "1", url: "http://127.0.0.1:9/1" });
      expect((await create(acme.apiKey, endpointId, { name: "2", url: "http://127.0.0.1:9/2" })).status).toBe(201);
      const over = await create(acme.apiKey, endpointId, { name: "3", url: "http://127.0.0.1:9/3" });
      expect(over.status).toBe(409);
      expect(over.body.error).toEqual({ code: "limit_reached", message: expect.stringMatching(/limit of 3 destinations/) });
      expect(await destinationRows(endpointId)).toHaveLength(3);
      expect((await remove(acme.apiKey, endpointId, first.body.id)).status).toBe(204);
      expect((await create(acme.apiKey, endpointId, { name: "3", url: "http://127.0.0.1:9/3" })).status).toBe(201);
      // Per endpoint: another endpoint has its own.
      expect((await create(acme.apiKey, await endpointOf(acme.apiKey), { name: "x", url: "http://127.0.0.1:9/x" })).status).toBe(201);
    } finally {
      delete process.env.ENDPOINT_MAX_DESTINATIONS;
    }
  });
});
