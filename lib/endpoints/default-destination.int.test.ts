// An endpoint's destination fields live on its default destination (API.md "Destinations"): made with the
// endpoint, written by its PATCH, read back by GET and list, while clients see the endpoint they always saw.
import { beforeAll, describe, expect, it } from "vitest";
import * as collection from "@/app/api/v1/endpoints/route";
import * as item from "@/app/api/v1/endpoints/[id]/route";
import { getSql } from "@/db";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

const OUTBOUND = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
let acme: Awaited<ReturnType<typeof createOrganizationFixture>>;
let globex: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
  globex = await createOrganizationFixture("Globex");
});

const destinationsOf = (endpointId: string) => getSql()`
  select id, organization_id, name, type, url, is_default, paused, max_attempts, retry_base_seconds, timeout_ms,
    outbound_secret_encrypted is not null as signs, updated_at
  from destinations where endpoint_id = ${endpointId}`;

describe("an endpoint's default destination", () => {
  it("is made with the endpoint, holding its destination settings, under the endpoint's id", async () => {
    const made = await callRoute(collection.POST, { method: "POST", apiKey: acme.apiKey, body: {
      name: "Orders", provider: "none", destinationUrl: "http://127.0.0.1:9/orders", paused: true, maxAttempts: 3,
      retryBaseSeconds: 7, timeoutMs: 2000, outboundSecret: OUTBOUND } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ destinationUrl: "http://127.0.0.1:9/orders", paused: true, maxAttempts: 3, retryBaseSeconds: 7, timeoutMs: 2000, signsOutbound: true });
    expect(await destinationsOf(made.body.id)).toEqual([expect.objectContaining({
      id: defaultDestinationId(made.body.id), organization_id: acme.organizationId, name: "Default", type: "http",
      url: "http://127.0.0.1:9/orders", is_default: true, paused: true, max_attempts: 3, retry_base_seconds: 7, timeout_ms: 2000, signs: true,
    })]);
  });

  it("takes a PATCH of the endpoint's destination fields, and only those, and GET and list read them back", async () => {
    const made = await callRoute(collection.POST, { method: "POST", apiKey: acme.apiKey, body: { name: "Invoices", provider: "none", destinationUrl: "http://127.0.0.1:9/a" } });
    const [before] = await destinationsOf(made.body.id);

    const renamed = await callRoute(item.PATCH, { method: "PATCH", apiKey: acme.apiKey, params: { id: made.body.id }, body: { name: "Bills" } });
    expect(renamed.status).toBe(200);
    expect(await destinationsOf(made.body.id)).toEqual([before]); // the endpoint's own setting: its destination untouched

    const changed = await callRoute(item.PATCH, { method: "PATCH", apiKey: acme.apiKey, params: { id: made.body.id }, body: {
      destinationUrl: "http://127.0.0.1:9/b", paused: true, maxAttempts: 2, retryBaseSeconds: 60, timeoutMs: 1000, outboundSecret: OUTBOUND } });
    expect(changed.status).toBe(200);
    const expected = { name: "Bills", destinationUrl: "http://127.0.0.1:9/b", paused: true, maxAttempts: 2, retryBaseSeconds: 60, timeoutMs: 1000, signsOutbound: true };
    expect(changed.body).toMatchObject(expected);
    expect(await destinationsOf(made.body.id)).toEqual([expect.objectContaining({ url: "http://127.0.0.1:9/b", paused: true, max_attempts: 2, retry_base_seconds: 60, timeout_ms: 1000, signs: true })]);
    expect((await callRoute(item.GET, { apiKey: acme.apiKey, params: { id: made.body.id } })).body).toMatchObject(expected);
    const listed = await callRoute(collection.GET, { apiKey: acme.apiKey, path: "/api/v1/endpoints?limit=200" });
    expect(listed.body.data.find((e: { id: string }) => e.id === made.body.id)).toMatchObject(expected);

    const stopped = await callRoute(item.PATCH, { method: "PATCH", apiKey: acme.apiKey, params: { id: made.body.id }, body: { outboundSecret: null, paused: false } });
    expect(stopped.body).toMatchObject({ paused: false, signsOutbound: false });
  });

  it("is neither read nor written through another organization's key", async () => {
    const made = await callRoute(collection.POST, { method: "POST", apiKey: acme.apiKey, body: { name: "Mine", provider: "none", destinationUrl: "http://127.0.0.1:9/m" } });
    const [before] = await destinationsOf(made.body.id);
    const patched = await callRoute(item.PATCH, { method: "PATCH", apiKey: globex.apiKey, params: { id: made.body.id }, body: { paused: true } });
    expect(patched.status).toBe(404);
    expect((await callRoute(item.GET, { apiKey: globex.apiKey, params: { id: made.body.id } })).status).toBe(404);
    expect(await destinationsOf(made.body.id)).toEqual([before]);
  });
});
