// The Destinations REST API (API.md "Destinations") over its route handlers, what it takes: a destination made,
// read, listed, changed and deleted; its defaults and the list's pages; the forms of rate limit and ordering key
// it takes, and a pull destination. Its refusals of bad input are destinations-validation.int.test.ts's.
import { beforeAll, describe, expect, it } from "vitest";
import * as item from "@/app/api/v1/endpoints/[id]/destinations/[destinationId]/route";
import { getSql } from "@/db";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { useTestDatabase } from "@/test/db";
import { auditOf, create, destinationRows, endpointOf, get, list, OUTBOUND, patch, remove } from "@/test/destination-api";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

let acme: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
});

describe("a destination's round trip", () => {
  it("is made with every field, read, listed, changed and deleted, its secret never shown", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    const filter = { body: { type: { $startsWith: "invoice." }, data: { object: { amount_due: { $gte: 1000 } } } } };
    const made = await create(acme.apiKey, endpointId, {
      name: "Billing", url: "http://127.0.0.1:9/billing", filter,
      paused: true, maxAttempts: 4, retryBaseSeconds: 30, timeoutMs: 2000, outboundSecret: OUTBOUND, alertPendingAgeSeconds: 900,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const expected = {
      id: expect.stringMatching(/^dst_[0-9a-z]{25}$/), endpointId, name: "Billing", type: "http", url: "http://127.0.0.1:9/billing", default: false,
      filter, rateLimit: null, orderingKey: null, paused: true, maxAttempts: 4, retryBaseSeconds: 30,
      timeoutMs: 2000, signsOutbound: true, alertChannelIds: [], alertPendingAgeSeconds: 900, deadThreshold: null, deadWindowMinutes: null, autoPause: null, autoPaused: null, createdAt: expect.any(String),
    };
    expect(made.body).toEqual(expected);
    expect(JSON.stringify(made.body)).not.toContain(OUTBOUND.slice(6));
    const id = made.body.id as string;

    const [row] = (await destinationRows(endpointId)).filter((r) => r.id === id);
    expect(row).toMatchObject({ is_default: false, filter, rate_per_second: null, rate_burst: null, ordering_key: null, paused: true, max_attempts: 4, deleted_at: null });
    expect(row!.outbound_secret_encrypted).toEqual(expect.any(String));
    expect(row!.outbound_secret_encrypted).not.toContain(OUTBOUND.slice(6));

    const read = await get(acme.apiKey, endpointId, id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(made.body);

    const listed = await list(acme.apiKey, endpointId);
    expect(listed.status).toBe(200);
    expect(listed.body.nextCursor).toBeNull();
    expect(listed.body.data).toEqual([
      made.body,
      expect.objectContaining({ id: defaultDestinationId(endpointId), default: true, name: "Default", url: "http://127.0.0.1:9/default", filter: null, rateLimit: null, orderingKey: null }),
    ]);

    const changed = await patch(acme.apiKey, endpointId, id, { name: "Bills", filter: null, outboundSecret: null, type: "http" });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toEqual({ ...made.body, name: "Bills", filter: null, signsOutbound: false });
    expect((await destinationRows(endpointId)).find((r) => r.id === id)).toMatchObject({ name: "Bills", filter: null, rate_per_second: null, rate_burst: null, outbound_secret_encrypted: null });
    // A null rateLimit and orderingKey (none) are still taken; here they change nothing.
    const cleared = await patch(acme.apiKey, endpointId, id, { rateLimit: null, orderingKey: null });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body).toEqual(changed.body);

    const gone = await remove(acme.apiKey, endpointId, id);
    expect(gone.status).toBe(204);
    expect((await get(acme.apiKey, endpointId, id)).status).toBe(404);

    const entries = await auditOf(acme.organizationId, id);
    expect(entries.map((e) => e.action)).toEqual(["destination.created", "destination.updated", "destination.updated", "destination.deleted"]);
    expect(entries.every((e) => e.target_type === "destination")).toBe(true);
    expect(entries[0]!.details).toMatchObject({ endpointId, name: "Billing", url: "http://127.0.0.1:9/billing", filter, paused: true, maxAttempts: 4 });
    expect(entries[1]!.details).toEqual({ fields: ["name", "filter", "outboundSecret"], changes: { name: "Bills", filter: null } });
    expect(entries[2]!.details).toEqual({ fields: [], changes: {} });
    expect(entries[3]!.details).toEqual({ endpointId, name: "Bills" });
    expect(JSON.stringify(entries)).not.toContain(OUTBOUND.slice(6));
  });

  it("makes a destination with the defaults, and pages the list newest first", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2)); // one millisecond apart at least: the list's order is by creation
      const made = await create(acme.apiKey, endpointId, { name: `d${i}`, url: "http://127.0.0.1:9/x" });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body).toMatchObject({ type: "http", url: "http://127.0.0.1:9/x", default: false, paused: false, maxAttempts: 8, retryBaseSeconds: 5, timeoutMs: 15000, filter: null, rateLimit: null, orderingKey: null, signsOutbound: false });
      ids.push(made.body.id);
    }

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(acme.apiKey, endpointId, `?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((d: { id: string }) => d.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    expect(seen.slice(0, 5)).toEqual([...ids].reverse());
    expect(seen.at(-1)).toBe(defaultDestinationId(endpointId));
    expect((await list(acme.apiKey, endpointId, "?limit=201")).status).toBe(400);
    expect((await list(acme.apiKey, endpointId, "?cursor=nope")).status).toBe(400);
  });
});

describe("refuses bad input with 400, naming what is wrong, and stores nothing", () => {
  it("takes every form of ordering key the rules allow, on create and on change", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    for (const orderingKey of ["$externalId", "data.object.id", "items[0].id", "[0].id", "a-b_c.D9[1][2]", `a.${"b".repeat(198)}`]) {
      const made = await create(acme.apiKey, endpointId, { name: "ordered", url: "http://127.0.0.1:9/o", orderingKey });
      expect(made.status, orderingKey).toBe(201);
      expect(made.body.orderingKey).toBe(orderingKey);
      const cleared = await patch(acme.apiKey, endpointId, made.body.id, { orderingKey: null });
      expect(cleared.body.orderingKey).toBeNull();
      await callRoute(item.DELETE, { method: "DELETE", apiKey: acme.apiKey, params: { id: endpointId, destinationId: made.body.id } });
    }
  });

  it("makes a pull destination (no url; a url given with it is 400), and refuses a change of type either way", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    const http = (await create(acme.apiKey, endpointId, { name: "h", url: "http://127.0.0.1:9/h", paused: true })).body.id as string;
    const defaultId = defaultDestinationId(endpointId);

    for (const body of [{ name: "laptop", type: "pull" }, { name: "laptop-2", type: "pull", url: null }]) {
      const made = await create(acme.apiKey, endpointId, body);
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body).toMatchObject({ type: "pull", url: null, default: false, name: body.name });
    }
    const withUrl = await create(acme.apiKey, endpointId, { name: "laptop-3", type: "pull", url: "http://127.0.0.1:9/" });
    expect(withUrl.status).toBe(400);
    expect(withUrl.body.error.message).toMatch(/^url: a pull destination has no url/);
    const pulls = await getSql()<{ id: string }[]>`select id from destinations where endpoint_id = ${endpointId} and type = 'pull' order by created_at`;
    expect(pulls).toHaveLength(2);

    const before = await destinationRows(endpointId);
    for (const [id, body] of [[http, { type: "pull" }], [defaultId, { type: "pull", url: null, name: "renamed" }], [pulls[0]!.id, { type: "http", url: "http://127.0.0.1:9/x" }]] as const) {
      const res = await patch(acme.apiKey, endpointId, id, body);
      expect(res.status, `${id} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.error.message).toMatch(/^type: a destination's type cannot be changed/);
    }
    const urlOnPull = await patch(acme.apiKey, endpointId, pulls[0]!.id, { url: "http://127.0.0.1:9/x" });
    expect(urlOnPull.status).toBe(400);
    expect(await destinationRows(endpointId)).toEqual(before);
    expect((await auditOf(acme.organizationId, defaultId)).map((e) => e.action)).toEqual([]);

    // What is still taken: none (null) of either, and the http type.
    const plain = await create(acme.apiKey, endpointId, { name: "plain", type: "http", url: "http://127.0.0.1:9/p", rateLimit: null, orderingKey: null });
    expect(plain.status, JSON.stringify(plain.body)).toBe(201);
    expect(plain.body).toMatchObject({ type: "http", rateLimit: null, orderingKey: null });
  });

  it("takes a rate limit of any well-formed size, replaces it whole on a change, and clears it with null", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    for (const rateLimit of [{ perSecond: 0.001 }, { perSecond: 0.5, burst: 3 }, { perSecond: 10_000, burst: 1000 }]) {
      const made = await create(acme.apiKey, endpointId, { name: "paced", url: "http://127.0.0.1:9/p", rateLimit });
      expect(made.status, JSON.stringify(rateLimit)).toBe(201);
      expect(made.body.rateLimit).toEqual({ burst: 1, ...rateLimit });
      const changed = await patch(acme.apiKey, endpointId, made.body.id, { rateLimit: { perSecond: 2 } });
      expect(changed.body.rateLimit).toEqual({ perSecond: 2, burst: 1 });
      const cleared = await patch(acme.apiKey, endpointId, made.body.id, { rateLimit: null });
      expect(cleared.body.rateLimit).toBeNull();
      const [row] = await getSql()`select rate_per_second, rate_burst from destinations where id = ${made.body.id}`;
      expect(row).toEqual({ rate_per_second: null, rate_burst: null });
    }
  });
});
