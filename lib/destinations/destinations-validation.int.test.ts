// The Destinations REST API (API.md "Destinations") over its route handlers, what it refuses: bad input on create
// and on change (400, naming what is wrong: validation_error, or invalid_filter with the filter's path), and a
// private or internal url unless the operator allows one. Nothing refused is stored.
import { beforeAll, describe, expect, it } from "vitest";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { useTestDatabase } from "@/test/db";
import { create, destinationRows, endpointOf, get, list, patch } from "@/test/destination-api";
import { createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

let acme: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
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
