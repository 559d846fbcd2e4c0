import { beforeAll, describe, expect, it } from "vitest";
import * as route from "@/app/api/v1/organization/route";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();

let acme: Awaited<ReturnType<typeof createOrganizationFixture>>;
let globex: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
  globex = await createOrganizationFixture("Globex");
});

const patch = (apiKey: string, body: unknown) => callRoute(route.PATCH, { method: "PATCH", apiKey, body });

describe("GET /api/v1/organization", () => {
  it("answers the key's own organization with the default retention of 30 days", async () => {
    const res = await callRoute(route.GET, { apiKey: acme.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: acme.organizationId, name: "Acme", retentionDays: 30, digest: null, createdAt: expect.any(String) });
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
  });

  it("needs a key", async () => {
    expect((await callRoute(route.GET, {})).status).toBe(401);
    expect((await patch("inbox_sk_not-a-key", { retentionDays: 7 })).status).toBe(401);
  });
});

describe("PATCH /api/v1/organization", () => {
  it("changes the name and the retention, and only the organization of the key", async () => {
    const changed = await patch(acme.apiKey, { name: "  Acme Corp ", retentionDays: 7 });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: acme.organizationId, name: "Acme Corp", retentionDays: 7 });
    expect((await callRoute(route.GET, { apiKey: acme.apiKey })).body).toMatchObject({ name: "Acme Corp", retentionDays: 7 });

    const other = await callRoute(route.GET, { apiKey: globex.apiKey });
    expect(other.body).toMatchObject({ id: globex.organizationId, name: "Globex", retentionDays: 30 });
    const [row] = await getSql()`select name, retention_days from organizations where id = ${globex.organizationId}`;
    expect(row).toEqual({ name: "Globex", retention_days: 30 });
  });

  it("takes the bounds 1 and 365, one field at a time, and an empty body changes nothing", async () => {
    expect((await patch(globex.apiKey, { retentionDays: 1 })).body).toMatchObject({ name: "Globex", retentionDays: 1 });
    expect((await patch(globex.apiKey, { retentionDays: 365 })).body).toMatchObject({ retentionDays: 365 });
    const unchanged = await patch(globex.apiKey, {});
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toMatchObject({ name: "Globex", retentionDays: 365 });
  });

  it("answers 400 naming the problem, and changes nothing", async () => {
    const before = (await callRoute(route.GET, { apiKey: acme.apiKey })).body;
    const cases: Array<[unknown, RegExp]> = [
      [{ retentionDays: 0 }, /retentionDays must be a whole number of days from 1 to 365/],
      [{ retentionDays: 366 }, /retentionDays must be a whole number of days from 1 to 365/],
      [{ retentionDays: "x" }, /retentionDays must be a whole number of days from 1 to 365/],
      [{ retentionDays: "30" }, /retentionDays must be a whole number of days from 1 to 365/],
      [{ retentionDays: 1.5 }, /retentionDays must be a whole number of days from 1 to 365/],
      [{ retentionDays: null }, /retentionDays must be a whole number of days from 1 to 365/],
      [{ name: "" }, /name must not be empty/],
      [{ name: "x".repeat(201) }, /name must be at most 200 characters/],
      [{ name: "Ok", plan: "enterprise" }, /Unknown field\(s\): plan/],
      [{ id: "org_x" }, /Unknown field\(s\): id/],
      ["[1]", /expected object/],
      ["{not json", /not valid JSON/],
    ];
    for (const [body, message] of cases) {
      const res = await patch(acme.apiKey, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code, JSON.stringify(body)).toBe("validation_error");
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    expect((await callRoute(route.GET, { apiKey: acme.apiKey })).body).toEqual(before);
  });
});
