// The Destinations REST API (API.md "Destinations") over its route handlers: CRUD, validation, roles, tenancy,
// the default destination, the per-endpoint limit, and what deleting one does to its deliveries (its job's verb
// run here directly, step by step).
import { beforeAll, describe, expect, it } from "vitest";
import * as endpointCollection from "@/app/api/v1/endpoints/route";
import * as endpointItem from "@/app/api/v1/endpoints/[id]/route";
import * as collection from "@/app/api/v1/endpoints/[id]/destinations/route";
import * as item from "@/app/api/v1/endpoints/[id]/destinations/[destinationId]/route";
import { getDb, getSql } from "@/db";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { createCtx } from "@/lib/context";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { newId } from "@/lib/ids";
import { deliverJobSpec, enqueue } from "@/lib/queue/enqueue";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { END_DESTINATION_BATCH_SIZE, endDestinationDeliveries } from "@/lib/delivery/end-destination-deliveries";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

const OUTBOUND = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
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

async function endpointOf(apiKey: string, settings: Record<string, unknown> = {}): Promise<string> {
  const made = await callRoute(endpointCollection.POST, { method: "POST", apiKey, body: { name: "Orders", provider: "none", destinationUrl: "http://127.0.0.1:9/default", ...settings } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.id;
}
const list = (apiKey: string, id: string, query = "") => callRoute(collection.GET, { apiKey, params: { id }, path: `/api/v1/endpoints/${id}/destinations${query}` });
const create = (apiKey: string, id: string, body: unknown) => callRoute(collection.POST, { method: "POST", apiKey, params: { id }, body });
const get = (apiKey: string, id: string, destinationId: string) => callRoute(item.GET, { apiKey, params: { id, destinationId } });
const patch = (apiKey: string, id: string, destinationId: string, body: unknown) => callRoute(item.PATCH, { method: "PATCH", apiKey, params: { id, destinationId }, body });
const remove = (apiKey: string, id: string, destinationId: string) => callRoute(item.DELETE, { method: "DELETE", apiKey, params: { id, destinationId } });

const destinationRows = (endpointId: string) => getSql()`
  select id, name, type, url, is_default, filter, rate_per_second, rate_burst, ordering_key, paused, max_attempts, retry_base_seconds,
    timeout_ms, outbound_secret_encrypted, deleted_at, updated_at
  from destinations where endpoint_id = ${endpointId} order by id`;
const auditOf = (organizationId: string, targetId: string) => getSql()`
  select action, target_type, details from audit_log where organization_id = ${organizationId} and target_id = ${targetId} order by at, id`;

describe("a destination's round trip", () => {
  it("is made with every field, read, listed, changed and deleted, its secret never shown", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    const filter = { body: { type: { $startsWith: "invoice." }, data: { object: { amount_due: { $gte: 1000 } } } } };
    const made = await create(acme.apiKey, endpointId, {
      name: "Billing", url: "http://127.0.0.1:9/billing", filter,
      paused: true, maxAttempts: 4, retryBaseSeconds: 30, timeoutMs: 2000, outboundSecret: OUTBOUND,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const expected = {
      id: expect.stringMatching(/^dst_[0-9a-z]{25}$/), endpointId, name: "Billing", type: "http", url: "http://127.0.0.1:9/billing", default: false,
      filter, rateLimit: null, orderingKey: null, paused: true, maxAttempts: 4, retryBaseSeconds: 30,
      timeoutMs: 2000, signsOutbound: true, createdAt: expect.any(String),
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
  it("on create", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    const before = await destinationRows(endpointId);
    const cases: Array<[unknown, string, RegExp]> = [
      [{ url: "http://127.0.0.1:9/" }, "validation_error", /^name/],
      [{ name: "   ", url: "http://127.0.0.1:9/" }, "validation_error", /name must not be empty/],
      [{ name: "x" }, "validation_error", /url is required for an http destination/],
      [{ name: "x", url: null }, "validation_error", /url is required for an http destination/],
      [{ name: "x", type: "smtp", url: "http://127.0.0.1:9/" }, "validation_error", /^type/],
      [{ name: "x", url: "ftp://127.0.0.1/" }, "validation_error", /url must use http or https/],
      [{ name: "x", url: "not a url" }, "validation_error", /url must be an absolute http\(s\) URL/],
      [{ name: "x", url: "http://127.0.0.1:9/", default: true }, "validation_error", /Unknown field\(s\): default/],
      [{ name: "x", url: "http://127.0.0.1:9/", surprise: 1 }, "validation_error", /Unknown field\(s\): surprise/],
      [{ name: "x", url: "http://127.0.0.1:9/", maxAttempts: 0 }, "validation_error", /^maxAttempts/],
      [{ name: "x", url: "http://127.0.0.1:9/", maxAttempts: 51 }, "validation_error", /^maxAttempts/],
      [{ name: "x", url: "http://127.0.0.1:9/", retryBaseSeconds: 0 }, "validation_error", /^retryBaseSeconds/],
      [{ name: "x", url: "http://127.0.0.1:9/", timeoutMs: 99 }, "validation_error", /^timeoutMs/],
      [{ name: "x", url: "http://127.0.0.1:9/", timeoutMs: 30_001 }, "validation_error", /^timeoutMs/],
      [{ name: "x", url: "http://127.0.0.1:9/", paused: "yes" }, "validation_error", /^paused/],
      [{ name: "x", url: "http://127.0.0.1:9/", outboundSecret: "whsec_short" }, "validation_error", /outboundSecret must be a Standard Webhooks secret/],
      [{ name: "x", url: "http://127.0.0.1:9/", rateLimit: { perSecond: 0 } }, "validation_error", /rateLimit\.perSecond must be greater than 0/],
      [{ name: "x", url: "http://127.0.0.1:9/", rateLimit: { perSecond: -1 } }, "validation_error", /rateLimit\.perSecond must be greater than 0/],
      [{ name: "x", url: "http://127.0.0.1:9/", rateLimit: { perSecond: 10_001 } }, "validation_error", /rateLimit\.perSecond must be at most 10000/],
      [{ name: "x", url: "http://127.0.0.1:9/", rateLimit: {} }, "validation_error", /^rateLimit\.perSecond/],
      [{ name: "x", url: "http://127.0.0.1:9/", rateLimit: { perSecond: 1, burst: 0 } }, "validation_error", /rateLimit\.burst must be from 1 to 1000/],
      [{ name: "x", url: "http://127.0.0.1:9/", rateLimit: { perSecond: 1, burst: 1001 } }, "validation_error", /rateLimit\.burst must be from 1 to 1000/],
      [{ name: "x", url: "http://127.0.0.1:9/", rateLimit: { perSecond: 1, burst: 1.5 } }, "validation_error", /rateLimit\.burst must be a whole number/],
      [{ name: "x", url: "http://127.0.0.1:9/", rateLimit: { perSecond: 1, per: "minute" } }, "validation_error", /Unknown field\(s\): per/],
      [{ name: "x", url: "http://127.0.0.1:9/", rateLimit: 5 }, "validation_error", /^rateLimit/],
      [{ name: "x", url: "http://127.0.0.1:9/", filter: "type == invoice" }, "invalid_filter", /^filter: a filter must be a JSON object$/],
      [{ name: "x", url: "http://127.0.0.1:9/", filter: { body: { amount: { $gte: true } } } }, "invalid_filter", /^filter\.body\.amount\.\$gte: \$gte takes a number or a string$/],
      [{ name: "x", url: "http://127.0.0.1:9/", filter: { payload: { a: 1 } } }, "invalid_filter", /^filter\.payload: unknown top-level key "payload"/],
      [{ name: "x", url: "http://127.0.0.1:9/", filter: { $or: [{ body: { a: 1 } }, { body: { b: { $like: "x" } } }] } }, "invalid_filter", /^filter\.\$or\[1\]\.body\.b\.\$like: unknown operator \$like$/],
      [{ name: "x", url: "http://127.0.0.1:9/", filter: { body: { "a.b": { $in: 3 } } } }, "invalid_filter", /^filter\.body\["a\.b"\]\.\$in: \$in takes a list of values$/],
    ];
    const badKeys: unknown[] = ["data..id", "data object.id", ".data", "data.", "$eventType", "data.items[x]", "data.items[]", "données.id", "a".repeat(201), 12, ""];
    for (const orderingKey of badKeys) cases.push([{ name: "x", url: "http://127.0.0.1:9/", orderingKey }, "validation_error", /orderingKey must be null, \$externalId, or a dotted path into the body/]);
    for (const [body, code, message] of cases) {
      const res = await create(acme.apiKey, endpointId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code, JSON.stringify(body)).toBe(code);
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    expect(await destinationRows(endpointId)).toEqual(before);
  });

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

  it("refuses (400) a pull type, not supported in this release yet, on create and on change, storing nothing", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    const http = (await create(acme.apiKey, endpointId, { name: "h", url: "http://127.0.0.1:9/h", paused: true })).body.id as string;
    const defaultId = defaultDestinationId(endpointId);
    const before = await destinationRows(endpointId);
    const readBefore = { [http]: (await get(acme.apiKey, endpointId, http)).body, [defaultId]: (await get(acme.apiKey, endpointId, defaultId)).body };
    const notYet = (field: string) => new RegExp(`^${field}: .*\\bthis release\\b.*\\byet\\b`);
    const refusals: Array<[Record<string, unknown>, RegExp]> = [];

    // On create: every form the rules allow, and a pull destination with no url, a null one, or one (the release check comes first).
    const creates: Array<[Record<string, unknown>, RegExp]> = [
      ...refusals.map(([fields, message]): [Record<string, unknown>, RegExp] => [{ name: "x", url: "http://127.0.0.1:9/", ...fields }, message]),
      [{ name: "laptop", type: "pull" }, notYet("type")],
      [{ name: "laptop", type: "pull", url: null }, notYet("type")],
      [{ name: "laptop", type: "pull", url: "http://127.0.0.1:9/" }, notYet("type")],
    ];
    for (const [body, message] of creates) {
      const res = await create(acme.apiKey, endpointId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code, JSON.stringify(body)).toBe("validation_error");
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
    }

    // On change, of an added destination and of the default one, alone or beside a change that would be taken.
    const changes: Array<[Record<string, unknown>, RegExp]> = [
      ...refusals,
      ...refusals.map(([fields, message]): [Record<string, unknown>, RegExp] => [{ name: "renamed", paused: false, ...fields }, message]),
      [{ type: "pull" }, notYet("type")],
      [{ type: "pull", url: null, name: "renamed" }, notYet("type")],
    ];
    for (const id of [http, defaultId]) {
      for (const [body, message] of changes) {
        const res = await patch(acme.apiKey, endpointId, id, body);
        expect(res.status, `${id} ${JSON.stringify(body)}`).toBe(400);
        expect(res.body.error.code, `${id} ${JSON.stringify(body)}`).toBe("validation_error");
        expect(res.body.error.message, `${id} ${JSON.stringify(body)}`).toMatch(message);
      }
    }

    // Nothing stored, nothing changed, nothing audited.
    expect(await destinationRows(endpointId)).toEqual(before);
    expect(before).toHaveLength(2);
    for (const id of [http, defaultId]) {
      const read = await get(acme.apiKey, endpointId, id);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(readBefore[id]);
      expect(read.body).toMatchObject({ type: "http", rateLimit: null, orderingKey: null, paused: id === http });
    }
    expect((await list(acme.apiKey, endpointId)).body.data.map((d: { id: string }) => d.id).sort()).toEqual([http, defaultId].sort());
    expect((await auditOf(acme.organizationId, http)).map((e) => e.action)).toEqual(["destination.created"]);
    expect((await auditOf(acme.organizationId, defaultId)).map((e) => e.action)).toEqual([]);
    const unsupported = await getSql()`select count(*)::int as n from destinations
      where endpoint_id = ${endpointId} and type = 'pull'`;
    expect(unsupported[0]!.n).toBe(0);

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

  it("refuses a private or internal url unless the operator allows it", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "false";
    try {
      const res = await create(acme.apiKey, endpointId, { name: "meta", url: "http://169.254.169.254/latest" });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/private or internal/);
      const repointed = await patch(acme.apiKey, endpointId, defaultDestinationId(endpointId), { url: "http://10.0.0.1/" });
      expect(repointed.status).toBe(400);
      expect(repointed.body.error.message).toMatch(/private or internal/);
    } finally {
      process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    }
    expect((await list(acme.apiKey, endpointId)).body.data.map((d: { url: string }) => d.url)).toEqual(["http://127.0.0.1:9/default"]);
  });

  it("on change", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    const http = (await create(acme.apiKey, endpointId, { name: "h", url: "http://127.0.0.1:9/h" })).body.id as string;
    const before = await destinationRows(endpointId);
    const cases: Array<[string, unknown, string, RegExp]> = [
      [http, { url: null }, "validation_error", /url is required for an http destination/],
      [http, { url: "ftp://127.0.0.1/" }, "validation_error", /url must use http or https/],
      [http, { name: "" }, "validation_error", /name must not be empty/],
      [http, { id: "dst_x" }, "validation_error", /Unknown field\(s\): id/],
      [http, { rateLimit: { perSecond: 0 } }, "validation_error", /rateLimit\.perSecond must be greater than 0/],
      [http, { orderingKey: "a b" }, "validation_error", /orderingKey must be null, \$externalId, or a dotted path/],
      [http, { filter: { headers: { "x-kind": { $exist: "yes" } } } }, "invalid_filter", /^filter\.headers\.x-kind\.\$exist: \$exist takes true or false$/],
    ];
    for (const [id, body, code, message] of cases) {
      const res = await patch(acme.apiKey, endpointId, id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code, JSON.stringify(body)).toBe(code);
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    expect(await destinationRows(endpointId)).toEqual(before);
    // Sending back what was read (its type, and its null rateLimit and orderingKey, included) is no change.
    const { body: read } = await get(acme.apiKey, endpointId, http);
    const { name, type, url, filter, rateLimit, orderingKey, paused, maxAttempts, retryBaseSeconds, timeoutMs } = read;
    const same = await patch(acme.apiKey, endpointId, http, { name, type, url, filter, rateLimit, orderingKey, paused, maxAttempts, retryBaseSeconds, timeoutMs });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body).toEqual(read);
    expect(read).toMatchObject({ type: "http", rateLimit: null, orderingKey: null });
  });
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
    await insertDeliveries([{ id: deliveryId, endpointId, destinationId: id, status: "pending", parked: true }]);
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

interface DeliverySeed {
  id: string;
  endpointId: string;
  destinationId: string;
  status: "pending" | "delivering" | "delivered" | "dead";
  parked?: boolean;
  lastError?: string;
  /** Its deliver job, as ingest or a retry leaves one for a pending delivery that is not parked. */
  job?: boolean;
}

/** Delivery rows as ingest and the engine leave them (rows only: burying and counting read no payload). */
async function insertDeliveries(seeds: DeliverySeed[]): Promise<void> {
  await getSql()`
    insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, last_error, parked_at,
      claimed_by_job, lease_expires_at)
    select s.id, ${acme.organizationId}, s.endpoint_id, s.destination_id, 'evt_' || s.id, s.status, 2, s.last_error,
      case when s.parked then now() end,
      case when s.status = 'delivering' then 'job-1' end, case when s.status = 'delivering' then now() + interval '1 minute' end
    from json_to_recordset(${JSON.stringify(seeds.map((s) => ({ id: s.id, endpoint_id: s.endpointId, destination_id: s.destinationId,
      status: s.status, last_error: s.lastError ?? null, parked: s.parked ?? false })))}::text::json)
      as s(id text, endpoint_id text, destination_id text, status text, last_error text, parked boolean)`;
  const jobs = seeds.filter((s) => s.job).map((s) => deliverJobSpec({ deliveryId: s.id, destinationId: s.destinationId, trigger: "auto" }));
  if (jobs.length) await enqueue(getDb(), jobs);
}
/** Which of these deliveries have a deliver job waiting (keyed or not). */
const withJobs = async (deliveryIds: string[]) =>
  (await getSql()`select distinct payload->>'deliveryId' as id from graphile_worker._private_jobs
    where payload->>'deliveryId' in ${getSql()(deliveryIds)} order by 1`).map((r) => r.id as string);
const statusesOf = async (ids: string[]) =>
  Object.fromEntries((await getSql()`select id, status, last_error from deliveries where id in ${getSql()(ids)}`).map((r) => [r.id, [r.status, r.last_error]]));

describe("deleting a destination other than the default", () => {
  it("hides it at once, buries its waiting deliveries in bounded steps, and removes its row once none is open", async () => {
    const endpointId = await endpointOf(acme.apiKey);
    const defaultId = defaultDestinationId(endpointId);
    const doomed = (await create(acme.apiKey, endpointId, { name: "doomed", url: "http://127.0.0.1:9/d" })).body.id as string;
    const kept = (await create(acme.apiKey, endpointId, { name: "kept", url: "http://127.0.0.1:9/k" })).body.id as string;

    const waiting = Array.from({ length: END_DESTINATION_BATCH_SIZE + 2 }, () => newId("dlv"));
    const [retrying, parked, inFlight, delivered, dead, keptPending, defaultPending] = Array.from({ length: 7 }, () => newId("dlv"));
    await insertDeliveries([
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
    await insertDeliveries([{ id: pending, endpointId, destinationId: live, status: "pending", job: true }]);
    expect(await endDestinationDeliveries({ ctx: createCtx(acme.organizationId, { type: "system" }), input: { destinationId: live } })).toEqual({ state: "gone" });
    expect(await remove(acme.apiKey, endpointId, live)).toMatchObject({ status: 204 });
    expect(await endDestinationDeliveries({ ctx: createCtx(globex.organizationId, { type: "system" }), input: { destinationId: live } })).toEqual({ state: "gone" });
    expect((await statusesOf([pending]))[pending]).toEqual(["pending", null]);
    expect(await withJobs([pending])).toEqual([pending]);
  });
});
