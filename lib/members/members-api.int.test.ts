// Members over REST: list, change a role, remove; the last owner kept (409, race-free); another
// organization's member is 404; every change audited in its transaction; a removed member's sessions end.
import { randomBytes } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import * as memberRoute from "@/app/api/v1/members/[userId]/route";
import * as membersRoute from "@/app/api/v1/members/route";
import { getDb, getSql } from "@/db";
import { memberships, users } from "@/db/schema";
import type { Role } from "@/lib/access/roles";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { checkSession } from "@/lib/sessions/check-session";
import { startSession } from "@/lib/sessions/start-session";
import { createCtx } from "@/lib/context";
import { newId } from "@/lib/ids";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { changeMemberRole } from "./change-member-role";
import { removeMember } from "./remove-member";

useTestDatabase();

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;
let acme: Org;
beforeEach(async () => {
  acme = await createOrganizationFixture("Acme");
});

async function addMember(organizationId: string, role: Role): Promise<{ userId: string; email: string }> {
  const email = `member-${randomBytes(4).toString("hex")}@example.test`;
  const userId = newId("usr");
  await getDb().insert(users).values({ id: userId, email, passwordHash: "never-signs-in" });
  await getDb().insert(memberships).values({ organizationId, userId, role });
  return { userId, email };
}

const keyWithRole = async (org: Org, role: Role) => (await createApiKey({ ctx: org.ctx, input: { name: `${role} key`, role } })).apiKey;
const patch = (apiKey: string, userId: string, body: unknown) => callRoute(memberRoute.PATCH, { method: "PATCH", apiKey, body, params: { userId } });
const remove = (apiKey: string, userId: string) => callRoute(memberRoute.DELETE, { method: "DELETE", apiKey, params: { userId } });
const roleOf = async (organizationId: string, userId: string) =>
  (await getSql()`select role from memberships where organization_id = ${organizationId} and user_id = ${userId}`)[0]?.role ?? null;
const auditOf = (organizationId: string) =>
  getSql()`select action, actor_type, actor_id, target_type, target_id, details from audit_log where organization_id = ${organizationId} and action like 'member.%' order by at, id`;

describe("GET /api/v1/members", () => {
  it("lists the organization's members with email, role and join time, and no one else's", async () => {
    const viewer = await addMember(acme.organizationId, "viewer");
    const globex = await createOrganizationFixture("Globex");
    await addMember(globex.organizationId, "admin");
    const res = await callRoute(membersRoute.GET, { apiKey: acme.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { userId: acme.userId, email: acme.email, role: "owner", joinedAt: expect.any(String) },
      { userId: viewer.userId, email: viewer.email, role: "viewer", joinedAt: expect.any(String) },
    ]);
    expect(new Date(res.body.data[0].joinedAt).toISOString()).toBe(res.body.data[0].joinedAt);
  });

  it("needs a key", async () => {
    expect((await callRoute(membersRoute.GET, {})).status).toBe(401);
  });
});

describe("PATCH /api/v1/members/{userId}", () => {
  it("changes a role, records member.role_changed {from, to}, and an unchanged role records nothing", async () => {
    const member = await addMember(acme.organizationId, "viewer");
    const res = await patch(acme.apiKey, member.userId, { role: "admin" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ userId: member.userId, email: member.email, role: "admin", joinedAt: expect.any(String) });
    expect(await roleOf(acme.organizationId, member.userId)).toBe("admin");
    expect((await patch(acme.apiKey, member.userId, { role: "admin" })).status).toBe(200);
    const audit = await auditOf(acme.organizationId);
    expect(audit).toEqual([
      { action: "member.role_changed", actor_type: "api_key", actor_id: expect.stringMatching(/^key_/), target_type: "member", target_id: member.userId, details: { from: "viewer", to: "admin" } },
    ]);
  });

  it("answers 409 for demoting the last owner, and lets an owner step down once another owner exists", async () => {
    const res = await patch(acme.apiKey, acme.userId, { role: "admin" });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("conflict");
    expect(res.body.error.message).toMatch(/last owner/);
    expect(await roleOf(acme.organizationId, acme.userId)).toBe("owner");

    const second = await addMember(acme.organizationId, "admin");
    expect((await patch(acme.apiKey, second.userId, { role: "owner" })).status).toBe(200);
    expect((await patch(acme.apiKey, acme.userId, { role: "viewer" })).status).toBe(200);
    // The key that made the change was the demoted owner's own: it went with the owner role.
    expect((await patch(acme.apiKey, second.userId, { role: "admin" })).status).toBe(401);
    const { apiKey: cliKey } = await createApiKey({ ctx: createCtx(acme.organizationId, { type: "system" }), input: { name: "cli", role: "owner" } });
    expect((await patch(cliKey, second.userId, { role: "admin" })).status).toBe(409);
    expect(await roleOf(acme.organizationId, second.userId)).toBe("owner");
  });

  it("refuses a role that is not owner, admin or viewer, and unknown fields, with 400", async () => {
    const member = await addMember(acme.organizationId, "viewer");
    for (const body of [{ role: "member" }, { role: "OWNER" }, { role: "" }, { role: null }, {}, { role: "admin", email: "x@example.test" }, "[1]"]) {
      const res = await patch(acme.apiKey, member.userId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
    }
    expect(await roleOf(acme.organizationId, member.userId)).toBe("viewer");
  });

  it("answers 404 for another organization's member, a user who is no member, and an id not ours", async () => {
    const globex = await createOrganizationFixture("Globex");
    const theirs = await addMember(globex.organizationId, "viewer");
    for (const userId of [theirs.userId, globex.userId, newId("usr"), "usr_nope", "'; drop table users"]) {
      expect((await patch(acme.apiKey, userId, { role: "admin" })).status, userId).toBe(404);
      expect((await remove(acme.apiKey, userId)).status, userId).toBe(404);
    }
    expect(await roleOf(globex.organizationId, theirs.userId)).toBe("viewer");
  });

  it("answers 403 to admin and viewer keys, before looking at anything, and changes nothing", async () => {
    const member = await addMember(acme.organizationId, "viewer");
    for (const role of ["admin", "viewer"] as const) {
      const key = await keyWithRole(acme, role);
      for (const res of [await patch(key, member.userId, { role: "owner" }), await patch(key, "usr_nope", { role: "x" }), await remove(key, member.userId)]) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("forbidden");
      }
      expect((await callRoute(membersRoute.GET, { apiKey: key })).status).toBe(200);
    }
    expect(await roleOf(acme.organizationId, member.userId)).toBe("viewer");
    expect(await auditOf(acme.organizationId)).toEqual([]);
  });
});

describe("DELETE /api/v1/members/{userId}", () => {
  it("removes the member with 204, ends their sessions in this organization only, and records member.removed", async () => {
    const member = await addMember(acme.organizationId, "admin");
    const globex = await createOrganizationFixture("Globex");
    await getDb().insert(memberships).values({ organizationId: globex.organizationId, userId: member.userId, role: "viewer" });
    const inAcme = await startSession({ userId: member.userId, organizationId: acme.organizationId });
    const inGlobex = await startSession({ userId: member.userId, organizationId: globex.organizationId });

    const res = await remove(acme.apiKey, member.userId);
    expect(res.status).toBe(204);
    expect(await roleOf(acme.organizationId, member.userId)).toBeNull();
    expect((await getSql()`select id from sessions where id = ${inAcme}`).length).toBe(0);
    expect(await checkSession(inGlobex)).toMatchObject({ userId: member.userId, organizationId: globex.organizationId, role: "viewer" });
    expect((await getSql()`select 1 from users where id = ${member.userId}`).length).toBe(1);
    expect(await auditOf(acme.organizationId)).toEqual([
      { action: "member.removed", actor_type: "api_key", actor_id: expect.stringMatching(/^key_/), target_type: "member", target_id: member.userId, details: { role: "admin" } },
    ]);
    expect(await auditOf(globex.organizationId)).toEqual([]);
    expect((await remove(acme.apiKey, member.userId)).status).toBe(404);
  });

  it("answers 409 for removing the last owner, and records nothing", async () => {
    await addMember(acme.organizationId, "admin");
    const res = await remove(acme.apiKey, acme.userId);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/last owner/);
    expect(await roleOf(acme.organizationId, acme.userId)).toBe("owner");
    expect(await auditOf(acme.organizationId)).toEqual([]);
  });
});

describe("two owners demoting or removing each other at the same moment", () => {
  it("leaves exactly one owner: one change commits, the other gets 409", async () => {
    for (let round = 0; round < 5; round++) {
      const org = await createOrganizationFixture(`Race ${round}`);
      const other = await addMember(org.organizationId, "owner");
      const asOwner = (userId: string) => createCtx(org.organizationId, { type: "user", userId, role: "owner" });
      const outcomes = await Promise.allSettled([
        changeMemberRole({ ctx: asOwner(org.userId), input: { userId: other.userId, changes: { role: "viewer" } } }),
        round % 2 === 0
          ? changeMemberRole({ ctx: asOwner(other.userId), input: { userId: org.userId, changes: { role: "admin" } } })
          : removeMember({ ctx: asOwner(other.userId), input: { userId: org.userId } }),
      ]);
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      const refused = outcomes.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult;
      expect(refused.reason).toMatchObject({ status: 409 });
      const owners = await getSql()`select user_id from memberships where organization_id = ${org.organizationId} and role = 'owner'`;
      expect(owners).toHaveLength(1);
    }
  });
});
