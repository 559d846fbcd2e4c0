// Issue #15 point 2, the dashboard half: every server action, called in an owner's, an admin's and a
// viewer's session, is allowed or refused, and a refusal changes nothing (the organization's rows compared
// before and after). Table-driven: a new action is one line in ACTIONS (test/role-matrix-action-cases.ts); the
// coverage check at the end fails while an actions.ts export is missing from it. REST routes: role-matrix-rest.int.test.ts.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { getSql } from "@/db";
import { can } from "@/lib/access/roles";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { createCtx } from "@/lib/context";
import { actionOutcome, asSession, formOf } from "@/test/dashboard-session";
import { useTestDatabase } from "@/test/db";
import { organizationState, ROLES, useRoleMatrixWorld, world } from "@/test/role-matrix";
import { ACTIONS } from "@/test/role-matrix-action-cases";

vi.mock("next/headers", async () => (await import("@/test/dashboard-session")).nextHeadersModule);
vi.mock("next/cache", async () => (await import("@/test/dashboard-session")).nextCacheModule);
vi.mock("@/lib/auth/auth", async () => (await import("@/test/dashboard-session")).authModule);

process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
useTestDatabase();
useRoleMatrixWorld();

describe("server actions: each role's session is allowed or refused, and a refusal changes nothing", () => {
  for (const testCase of ACTIONS) {
    for (const role of ROLES) {
      const allowed = testCase.permission === null || can({ type: "user", userId: "usr", role }, testCase.permission);
      it(`${testCase.action} as ${role}: ${allowed ? "allowed" : "refused"}`, async () => {
        const { run, organizationId, sessionId } = await testCase.call(role);
        const before = await organizationState(organizationId);
        const outcome = await asSession(sessionId, () => actionOutcome(run));
        if (allowed) {
          expect(outcome).toBe("allowed");
        } else {
          expect(outcome).toBe("forbidden");
          expect(await organizationState(organizationId)).toEqual(before);
        }
      });
    }
  }

  it("an admin may not create an owner key, an owner may; a viewer sees the refusal and no key is made", async () => {
    const { createApiKeyAction } = await import("@/app/(dashboard)/api-keys/actions");
    const before = await organizationState(world().organizationId);
    const refused = await asSession(world().sessions.admin, () => createApiKeyAction(world().organizationId, {}, formOf({ name: "escalate", role: "owner" })));
    expect(refused.error).toMatch(/only an owner may create an owner key/);
    expect(await organizationState(world().organizationId)).toEqual(before);
    const made = await asSession(world().sessions.owner, () => createApiKeyAction(world().organizationId, {}, formOf({ name: "owner's", role: "owner" })));
    expect(made.ok).toBe(true);
    const [row] = await getSql()`select role, created_by_user_id from api_keys where id = ${made.id!}`;
    expect(row).toEqual({ role: "owner", created_by_user_id: world().users.owner.userId });
  });
});

const APP = path.resolve("app");

function actionFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? actionFiles(full) : /actions\.ts$/.test(entry.name) ? [full] : [];
  });
}

describe("revoking a key takes the right to create one of its role", () => {
  it("an admin may not revoke an owner key, the CLI's bootstrap key included; an owner may", async () => {
    const { revokeApiKeyAction } = await import("@/app/(dashboard)/api-keys/actions");
    const bootstrap = await createApiKey({ ctx: createCtx(world().organizationId, { type: "system" }), input: { name: "bootstrap", role: "owner" } });
    const before = await organizationState(world().organizationId);
    const refused = await asSession(world().sessions.admin, () => revokeApiKeyAction(world().organizationId, {}, formOf({ id: bootstrap.id })));
    expect(refused.error).toMatch(/may not revoke owner keys/);
    expect(await organizationState(world().organizationId)).toEqual(before);
    const [still] = await getSql()`select revoked_at from api_keys where id = ${bootstrap.id}`;
    expect(still!.revoked_at).toBeNull();
    const revoked = await asSession(world().sessions.owner, () => revokeApiKeyAction(world().organizationId, {}, formOf({ id: bootstrap.id })));
    expect(revoked).toMatchObject({ ok: true, revokedId: bootstrap.id });
  });
});

describe("the table covers every action", () => {
  it("lists every exported function of every dashboard actions file", () => {
    const dashboard = path.join(APP, "(dashboard)");
    const expected = actionFiles(dashboard).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/export async function (\w+)/g)].map((m) => `${path.relative(dashboard, file).split(path.sep).join("/")}#${m[1]}`));
    expect(new Set(ACTIONS.map((c) => c.action))).toEqual(new Set(expected));
  });
});
