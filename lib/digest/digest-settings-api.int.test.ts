// Issue #45 part 4: the daily digest's setting through PATCH/GET /api/v1/organization: on, changed, off,
// validated (hourUtc 0–23, recipients members' addresses), owners and admins only, audited, and each key
// seeing and changing its own organization's alone.
import { beforeAll, describe, expect, it } from "vitest";
import * as route from "@/app/api/v1/organization/route";
import { getSql } from "@/db";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { useTestDatabase } from "@/test/db";
import { addMember } from "@/test/alert-fixtures";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();

let acme: Awaited<ReturnType<typeof createOrganizationFixture>>;
let globex: Awaited<ReturnType<typeof createOrganizationFixture>>;
let acmeMember: string;
let globexMember: string;
beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
  globex = await createOrganizationFixture("Globex");
  acmeMember = await addMember(acme.organizationId);
  globexMember = await addMember(globex.organizationId);
});

const patch = (apiKey: string, body: unknown) => callRoute(route.PATCH, { method: "PATCH", apiKey, body });
const get = async (apiKey: string) => (await callRoute(route.GET, { apiKey })).body;
const keyOf = async (organization: typeof acme, role: "owner" | "admin" | "viewer") =>
  (await createApiKey({ ctx: organization.ctx, input: { name: role, role } })).apiKey;

describe("the daily digest setting", () => {
  it("is off by default, turned on with an hour (owners by default), changed, and turned off with null", async () => {
    expect(await get(acme.apiKey)).toMatchObject({ digest: null });
    const on = await patch(acme.apiKey, { digest: { hourUtc: 7 } });
    expect(on.status).toBe(200);
    expect(on.body.digest).toEqual({ hourUtc: 7, recipients: null });
    expect((await get(acme.apiKey)).digest).toEqual({ hourUtc: 7, recipients: null });

    const chosen = await patch(acme.apiKey, { digest: { hourUtc: 0, recipients: [` ${acmeMember.toUpperCase()} `, acme.email, acmeMember] } });
    expect(chosen.status).toBe(200);
    expect(chosen.body.digest).toEqual({ hourUtc: 0, recipients: [acmeMember, acme.email] });
    expect((await patch(acme.apiKey, { digest: { hourUtc: 23, recipients: null } })).body.digest).toEqual({ hourUtc: 23, recipients: null });
    // Other fields leave it as it is.
    expect((await patch(acme.apiKey, { name: "Acme" })).body.digest).toEqual({ hourUtc: 23, recipients: null });

    const off = await patch(acme.apiKey, { digest: null });
    expect(off.status).toBe(200);
    expect(off.body.digest).toBeNull();
    const [row] = await getSql()`select digest_hour_utc, digest_recipients from organizations where id = ${acme.organizationId}`;
    expect(row).toEqual({ digest_hour_utc: null, digest_recipients: null });
  });

  it("answers 400 naming the problem and changes nothing: hours outside 0–23, bad or foreign recipients", async () => {
    await patch(acme.apiKey, { digest: { hourUtc: 9 } });
    const cases: Array<[unknown, RegExp]> = [
      [{ digest: { hourUtc: -1 } }, /digest.hourUtc must be a whole hour from 0 to 23/],
      [{ digest: { hourUtc: 24 } }, /digest.hourUtc must be a whole hour from 0 to 23/],
      [{ digest: { hourUtc: 7.5 } }, /digest.hourUtc must be a whole hour from 0 to 23/],
      [{ digest: { hourUtc: "7" } }, /digest.hourUtc must be a whole hour from 0 to 23/],
      [{ digest: {} }, /digest.hourUtc must be a whole hour from 0 to 23/],
      [{ digest: 7 }, /digest must be \{hourUtc, recipients\?\} or null/],
      [{ digest: { hourUtc: 7, when: "daily" } }, /Unknown field\(s\): when/],
      [{ digest: { hourUtc: 7, recipients: ["not-an-address"] } }, /digest.recipients must be email addresses/],
      [{ digest: { hourUtc: 7, recipients: "ops@example.test" } }, /digest.recipients must be a list of email addresses/],
      [{ digest: { hourUtc: 7, recipients: [] } }, /digest.recipients must name at least one address/],
      [{ digest: { hourUtc: 7, recipients: Array.from({ length: 21 }, (_, i) => `m${i}@example.test`) } }, /at most 20 addresses/],
      // Not a member of Acme: nobody at all, and a member of another organization.
      [{ digest: { hourUtc: 7, recipients: [acmeMember, "stranger@example.test"] } }, /must be members of the organization; not a member: stranger@example.test$/],
      [{ digest: { hourUtc: 7, recipients: [globexMember] } }, /not a member: ops-/],
    ];
    for (const [body, message] of cases) {
      const res = await patch(acme.apiKey, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code, JSON.stringify(body)).toBe("validation_error");
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    expect((await get(acme.apiKey)).digest).toEqual({ hourUtc: 9, recipients: null });
  });

  it("owners and admins change it, a viewer is refused 403; each key sees and changes its own organization only", async () => {
    const [admin, viewer] = [await keyOf(acme, "admin"), await keyOf(acme, "viewer")];
    expect((await patch(admin, { digest: { hourUtc: 12, recipients: [acmeMember] } })).body.digest).toEqual({ hourUtc: 12, recipients: [acmeMember] });
    const refused = await patch(viewer, { digest: { hourUtc: 3 } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    expect((await patch(viewer, { digest: null })).status).toBe(403);
    expect((await get(viewer)).digest).toEqual({ hourUtc: 12, recipients: [acmeMember] });

    expect((await get(globex.apiKey)).digest).toBeNull();
    expect((await patch(globex.apiKey, { digest: { hourUtc: 5, recipients: [globexMember] } })).status).toBe(200);
    expect((await get(acme.apiKey)).digest).toEqual({ hourUtc: 12, recipients: [acmeMember] });
    expect((await get(globex.apiKey)).digest).toEqual({ hourUtc: 5, recipients: [globexMember] });
  });

  it("writes an audit entry with the new setting, and none for a change that changes nothing", async () => {
    const entries = () => getSql()`
      select details from audit_log where organization_id = ${globex.organizationId} and action = 'organization.updated' order by at, id`;
    const before = (await entries()).length;
    await patch(globex.apiKey, { digest: { hourUtc: 6 } });
    await patch(globex.apiKey, { digest: null });
    await patch(globex.apiKey, { digest: null });
    const added = (await entries()).slice(before).map((row) => row.details);
    expect(added).toEqual([
      { fields: ["digest"], changes: { digest: { hourUtc: 6, recipients: null } } },
      { fields: ["digest"], changes: { digest: null } },
      { fields: [], changes: {} },
    ]);
  });
});
