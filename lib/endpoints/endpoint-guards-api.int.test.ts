// Issue #11 points 4 and 5 through the REST routes: the per-organization endpoint limit (also under
// concurrent creates) and the refusal of destinations that would loop back into this service.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as collection from "@/app/api/v1/endpoints/route";
import * as item from "@/app/api/v1/endpoints/[id]/route";
import { getDb, getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { until } from "@/test/delivery-fixtures";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

const create = (apiKey: string, name: string, destinationUrl = "http://127.0.0.1:9/hook") =>
  callRoute(collection.POST, { method: "POST", apiKey, body: { name, provider: "none", destinationUrl } });
const countOf = async (organizationId: string) =>
  (await getSql()`select count(*)::int as n from endpoints where organization_id = ${organizationId}`)[0]!.n as number;

describe("the per-organization endpoint limit", () => {
  beforeEach(() => {
    process.env.ORG_MAX_ENDPOINTS = "3";
  });
  afterEach(() => {
    delete process.env.ORG_MAX_ENDPOINTS;
  });

  it("answers 409 limit_reached for one endpoint more, and counts each organization apart", async () => {
    const acme = await createOrganizationFixture("Acme");
    const globex = await createOrganizationFixture("Globex");
    for (const name of ["a", "b", "c"]) expect((await create(acme.apiKey, name)).status).toBe(201);
    const over = await create(acme.apiKey, "d");
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe("limit_reached");
    expect(over.body.error.message).toMatch(/limit of 3 endpoints/);
    expect(await countOf(acme.organizationId)).toBe(3);
    expect((await create(globex.apiKey, "theirs")).status).toBe(201); // another organization is not affected

    // Deleting one makes room again.
    const first = (await callRoute(collection.GET, { apiKey: acme.apiKey })).body.data[0].id;
    expect((await callRoute(item.DELETE, { method: "DELETE", apiKey: acme.apiKey, params: { id: first } })).status).toBe(204);
    expect((await create(acme.apiKey, "d")).status).toBe(201);
  });

  it("lets exactly one of many concurrent creates at limit − 1 through", async () => {
    const org = await createOrganizationFixture("Racer");
    for (const name of ["a", "b"]) expect((await create(org.apiKey, name)).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => create(org.apiKey, `racer-${i}`)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.error.code === "limit_reached")).toBe(true);
    expect(await countOf(org.organizationId)).toBe(3);
  });

  it("makes a create wait for another create in flight in the same organization, then count its endpoint", async () => {
    const org = await createOrganizationFixture("Waiter");
    for (const name of ["a", "b"]) expect((await create(org.apiKey, name)).status).toBe(201);
    let second: ReturnType<typeof create> | undefined;
    await getDb().transaction(async (tx) => {
      // The third endpoint, created but not yet committed.
      await createEndpoint({ ctx: { ...org.ctx, db: tx }, input: { name: "c", provider: "none", destinationUrl: "http://127.0.0.1:9/" } });
      second = create(org.apiKey, "d");
      const outcome = await Promise.race([
        second.then((answer) => `answered ${answer.status}`),
        until("the second create to wait on the organization's lock", async () =>
          (await getSql()`select 1 from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`).length > 0 && "waiting"),
      ]);
      expect(outcome).toBe("waiting");
    });
    const answer = await second!;
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe("limit_reached");
    expect(await countOf(org.organizationId)).toBe(3);
  });

  it("defaults to 100 endpoints", async () => {
    delete process.env.ORG_MAX_ENDPOINTS;
    const org = await createOrganizationFixture("Big");
    await getSql()`
      with made as (
        insert into endpoints (id, organization_id, name, provider)
        select 'ep_bulk_' || ${org.organizationId} || '_' || n, ${org.organizationId}, 'bulk ' || n, 'none'
        from generate_series(1, 99) n returning id)
      insert into destinations (id, organization_id, endpoint_id, name, url, is_default)
      select 'dst_' || substr(id, 4), ${org.organizationId}, id, 'Default', 'http://127.0.0.1:9/', true from made`;
    expect((await create(org.apiKey, "the 100th")).status).toBe(201);
    const over = await create(org.apiKey, "the 101st");
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe("limit_reached");
  });
});

describe("destinations on this service itself", () => {
  const saved = { APP_URL: process.env.APP_URL, PORT: process.env.PORT };
  beforeEach(() => {
    process.env.APP_URL = "https://inbox.example.com";
    process.env.PORT = "3100";
  });
  afterEach(() => {
    process.env.APP_URL = saved.APP_URL;
    if (saved.PORT === undefined) delete process.env.PORT;
    else process.env.PORT = saved.PORT;
  });

  it("are refused with 400 on create, naming why, while private destinations are allowed", async () => {
    const org = await createOrganizationFixture("Loops");
    for (const url of ["https://INBOX.example.com./in/ep_x", "http://localhost:3100/in/ep_x", "http://[::1]:3100/", "http://0.0.0.0:3100/"]) {
      const res = await create(org.apiKey, "loop", url);
      expect(res.status, url).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
      expect(res.body.error.message).toMatch(/this service itself/);
    }
    expect(await countOf(org.organizationId)).toBe(0);
    expect((await create(org.apiKey, "elsewhere", "http://127.0.0.1:3101/hook")).status).toBe(201);
  });

  it("are refused with 400 on update, and the endpoint keeps its destination", async () => {
    const org = await createOrganizationFixture("Loops2");
    const { body: endpoint } = await create(org.apiKey, "fine", "http://127.0.0.1:3101/hook");
    const res = await callRoute(item.PATCH, {
      method: "PATCH", apiKey: org.apiKey, params: { id: endpoint.id }, body: { destinationUrl: `https://inbox.example.com/in/${endpoint.id}` },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/this service itself/);
    const again = await callRoute(item.GET, { apiKey: org.apiKey, params: { id: endpoint.id } });
    expect(again.body.destinationUrl).toBe("http://127.0.0.1:3101/hook");
  });
});
