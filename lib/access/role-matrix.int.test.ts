// Issue #15 point 2: every REST route and every dashboard server action, called as an owner, an admin
// and a viewer (an API key of that role; a member's session), is allowed or refused with 403
// `forbidden`, and a refusal changes nothing (the organization's rows compared before and after).
// Table-driven: a new route or action is one line in REST_ROUTES or ACTIONS; the coverage checks at the
// end fail while a route file's method or an actions.ts export is missing from the tables.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { getSql } from "@/db";
import { can, type Permission, type Role } from "@/lib/access/roles";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { createCtx, type Ctx } from "@/lib/context";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { inviteMember } from "@/lib/invitations/invite-member";
import { createDeliveryFixture } from "@/test/delivery-fixtures";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { actionOutcome, asSession, formOf, memberWithSession } from "@/test/dashboard-session";

vi.mock("next/headers", async () => (await import("@/test/dashboard-session")).nextHeadersModule);
vi.mock("next/cache", async () => (await import("@/test/dashboard-session")).nextCacheModule);
vi.mock("@/lib/auth/auth", async () => (await import("@/test/dashboard-session")).authModule);

process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
useTestDatabase();

const ROLES: Role[] = ["viewer", "admin", "owner"];
const newEmail = () => `invitee-${randomBytes(6).toString("hex")}@example.test`;

interface World {
  organizationId: string;
  ctx: Ctx;
  keys: Record<Role, string>;
  sessions: Record<Role, string>;
  users: Record<Role, { userId: string; email: string; ownOrganizationId: string }>;
}
let world: World;

beforeAll(async () => {
  const owner = await createOrganizationFixture("Matrix");
  const ctx = createCtx(owner.organizationId, { type: "system" });
  const keys = { owner: owner.apiKey } as Record<Role, string>;
  for (const role of ["admin", "viewer"] as const) keys[role] = (await createApiKey({ ctx, input: { name: role, role } })).apiKey;
  const users = {} as World["users"];
  const sessions = {} as World["sessions"];
  for (const role of ROLES) {
    const member = await memberWithSession(owner.organizationId, role);
    users[role] = member;
    sessions[role] = member.sessionId;
  }
  world = { organizationId: owner.organizationId, ctx, keys, sessions, users };
});

// Fresh targets for each call, so one role's allowed change never decides what the next role meets.
const endpoint = async (provider = "standard-webhooks") =>
  createEndpoint({ ctx: world.ctx, input: { name: `ep-${Math.random().toString(36).slice(2, 8)}`, provider, destinationUrl: "http://127.0.0.1:9/hook" } });
const delivery = async (status: "pending" | "delivered" | "dead" = "dead") => {
  const { id: endpointId } = await endpoint("none");
  return { endpointId, ...(await createDeliveryFixture({ ctx: world.ctx, endpointId, status, enqueue: false })) };
};

/** The organization's state that any route or action could change, as comparable text. */
async function organizationState(organizationId: string) {
  const [row] = await getSql()`
    select
      (select concat_ws('|', name, retention_days, deleted_at) from organizations where id = ${organizationId}) as organization,
      (select coalesce(string_agg(concat_ws('|', id, name, destination_url, paused, max_attempts, secret_encrypted, previous_secret_encrypted, outbound_secret_encrypted, updated_at), ',' order by id), '')
         from endpoints where organization_id = ${organizationId}) as endpoints,
      (select coalesce(string_agg(concat_ws('|', id, status, updated_at, pending_since, parked_at, next_attempt_at), ',' order by id), '')
         from deliveries where organization_id = ${organizationId}) as deliveries,
      (select coalesce(string_agg(concat_ws('|', id, name, role, revoked_at), ',' order by id), '') from api_keys where organization_id = ${organizationId}) as api_keys,
      (select coalesce(string_agg(concat_ws('|', user_id, role), ',' order by user_id), '') from memberships where organization_id = ${organizationId}) as memberships,
      (select coalesce(string_agg(concat_ws('|', id, role, withdrawn_at, accepted_at), ',' order by id), '') from invitations where organization_id = ${organizationId}) as invitations,
      (select count(*)::int from quarantined_requests where organization_id = ${organizationId}) as quarantined,
      (select count(*)::int from sessions where organization_id = ${organizationId}) as sessions,
      (select count(*)::int from graphile_worker.jobs) as jobs`;
  return row;
}

// ---------------------------------------------------------------------------------------------- REST
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- route modules type their own params
type Handler = (request: Request, context: { params: Promise<any> }) => Promise<Response>;

interface RestCase {
  /** "METHOD /api/v1/path" with [param] segments as in app/api/v1. */
  route: string;
  permission: Permission;
  load: () => Promise<Record<string, Handler>>;
  /** The call's params, body and query, made fresh for each role. */
  request?: () => Promise<{ params?: Record<string, string>; body?: unknown; query?: string }>;
}

const REST_ROUTES: RestCase[] = [
  { route: "GET /api/v1/endpoints", permission: "read", load: () => import("@/app/api/v1/endpoints/route") },
  {
    route: "POST /api/v1/endpoints", permission: "change", load: () => import("@/app/api/v1/endpoints/route"),
    request: async () => ({ body: { name: "Made", provider: "none", destinationUrl: "http://127.0.0.1:9/hook" } }),
  },
  { route: "GET /api/v1/endpoints/[id]", permission: "read", load: () => import("@/app/api/v1/endpoints/[id]/route"), request: async () => ({ params: { id: (await endpoint()).id } }) },
  {
    route: "PATCH /api/v1/endpoints/[id]", permission: "change", load: () => import("@/app/api/v1/endpoints/[id]/route"),
    request: async () => ({ params: { id: (await endpoint()).id }, body: { name: "Renamed", paused: true } }),
  },
  { route: "DELETE /api/v1/endpoints/[id]", permission: "change", load: () => import("@/app/api/v1/endpoints/[id]/route"), request: async () => ({ params: { id: (await endpoint()).id } }) },
  { route: "GET /api/v1/endpoints/[id]/stats", permission: "read", load: () => import("@/app/api/v1/endpoints/[id]/stats/route"), request: async () => ({ params: { id: (await endpoint()).id } }) },
  {
    route: "POST /api/v1/endpoints/[id]/rotate-secret", permission: "change", load: () => import("@/app/api/v1/endpoints/[id]/rotate-secret/route"),
    request: async () => ({ params: { id: (await endpoint()).id }, body: {} }),
  },
  { route: "GET /api/v1/endpoints/[id]/quarantine", permission: "read", load: () => import("@/app/api/v1/endpoints/[id]/quarantine/route"), request: async () => ({ params: { id: (await endpoint()).id } }) },
  {
    route: "POST /api/v1/endpoints/[id]/quarantine/reverify", permission: "change", load: () => import("@/app/api/v1/endpoints/[id]/quarantine/reverify/route"),
    request: async () => ({ params: { id: (await endpoint()).id } }),
  },
  { route: "GET /api/v1/deliveries", permission: "read", load: () => import("@/app/api/v1/deliveries/route") },
  { route: "GET /api/v1/deliveries/[id]", permission: "read", load: () => import("@/app/api/v1/deliveries/[id]/route"), request: async () => ({ params: { id: (await delivery()).id } }) },
  { route: "POST /api/v1/deliveries/[id]/replay", permission: "change", load: () => import("@/app/api/v1/deliveries/[id]/replay/route"), request: async () => ({ params: { id: (await delivery("dead")).id } }) },
  { route: "POST /api/v1/deliveries/[id]/bury", permission: "change", load: () => import("@/app/api/v1/deliveries/[id]/bury/route"), request: async () => ({ params: { id: (await delivery("pending")).id } }) },
  {
    route: "POST /api/v1/deliveries/replay", permission: "change", load: () => import("@/app/api/v1/deliveries/replay/route"),
    request: async () => ({ body: { endpointId: (await delivery("dead")).endpointId } }),
  },
  {
    route: "POST /api/v1/deliveries/bury", permission: "change", load: () => import("@/app/api/v1/deliveries/bury/route"),
    request: async () => ({ body: { endpointId: (await delivery("pending")).endpointId } }),
  },
  { route: "GET /api/v1/organization", permission: "read", load: () => import("@/app/api/v1/organization/route") },
  { route: "PATCH /api/v1/organization", permission: "change", load: () => import("@/app/api/v1/organization/route"), request: async () => ({ body: { name: "Matrix", retentionDays: 9 } }) },
  { route: "GET /api/v1/members", permission: "read", load: () => import("@/app/api/v1/members/route") },
  {
    route: "PATCH /api/v1/members/[userId]", permission: "manage_members", load: () => import("@/app/api/v1/members/[userId]/route"),
    request: async () => ({ params: { userId: (await memberWithSession(world.organizationId, "viewer")).userId }, body: { role: "admin" } }),
  },
  {
    route: "DELETE /api/v1/members/[userId]", permission: "manage_members", load: () => import("@/app/api/v1/members/[userId]/route"),
    request: async () => ({ params: { userId: (await memberWithSession(world.organizationId, "viewer")).userId } }),
  },
  { route: "GET /api/v1/invitations", permission: "manage_members", load: () => import("@/app/api/v1/invitations/route") },
  { route: "POST /api/v1/invitations", permission: "manage_members", load: () => import("@/app/api/v1/invitations/route"), request: async () => ({ body: { email: newEmail(), role: "viewer" } }) },
  {
    route: "DELETE /api/v1/invitations/[id]", permission: "manage_members", load: () => import("@/app/api/v1/invitations/[id]/route"),
    request: async () => ({ params: { id: (await inviteMember({ ctx: world.ctx, input: { email: newEmail(), role: "viewer" } })).id } }),
  },
  { route: "GET /api/v1/audit-log", permission: "read", load: () => import("@/app/api/v1/audit-log/route") },
];

/** A refused dry run changes nothing either: the same bulk routes with ?dryRun=true. */
const DRY_RUNS: RestCase[] = REST_ROUTES.filter((c) => /^POST \/api\/v1\/deliveries\/(replay|bury)$/.test(c.route)).map((c) => ({ ...c, route: `${c.route}?dryRun=true` }));

describe("REST: each role is allowed or refused with 403 forbidden, and a refusal changes nothing", () => {
  for (const testCase of [...REST_ROUTES, ...DRY_RUNS]) {
    for (const role of ROLES) {
      const allowed = can({ type: "api_key", apiKeyId: "key", role }, testCase.permission);
      it(`${testCase.route} with a ${role} key: ${allowed ? "allowed" : "403"}`, async () => {
        const [method, pathAndQuery] = testCase.route.split(" ") as [string, string];
        const handler = (await testCase.load())[method];
        expect(handler, `${method} exported`).toBeTypeOf("function");
        const { params, body } = (await testCase.request?.()) ?? {};
        const before = await organizationState(world.organizationId);
        const res = await callRoute(handler!, { method, path: pathAndQuery.replace("/api/v1", ""), apiKey: world.keys[role], params, body });
        if (allowed) {
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
        } else {
          expect(res.status).toBe(403);
          expect(res.body).toEqual({ error: { code: "forbidden", message: expect.any(String) } });
          expect(await organizationState(world.organizationId)).toEqual(before);
        }
      });
    }
  }

  it("refuses before any other check of the request: a viewer's malformed body, unknown id, control character and bad field all get 403", async () => {
    const { PATCH } = await import("@/app/api/v1/endpoints/[id]/route");
    const { id: existing } = await endpoint();
    const before = await organizationState(world.organizationId);
    for (const [id, body] of [["not-an-id", "{not json"], [existing, { name: "a\u0000b" }], [existing, { plan: "x" }]] as const) {
      const res = await callRoute(PATCH, { method: "PATCH", apiKey: world.keys.viewer, params: { id }, body });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    }
    const { POST } = await import("@/app/api/v1/deliveries/replay/route");
    expect((await callRoute(POST, { method: "POST", path: "/?dryRun=maybe", apiKey: world.keys.viewer, body: { status: "nope" } })).status).toBe(403);
    expect(await organizationState(world.organizationId)).toEqual(before);
  });
});

// ----------------------------------------------------------------------------------- server actions
const action = async <M,>(load: () => Promise<M>) => load();

interface ActionCase {
  /** "<file under app/(dashboard)>#<export>". */
  action: string;
  /** null: any signed-in member may (their own account, their own organizations). */
  permission: Permission | null;
  /** Calls the action for `role`; returns the organization whose state a refusal must leave alone. */
  call: (role: Role) => Promise<{ run: () => Promise<unknown>; organizationId: string; sessionId: string }>;
}

const inWorld = (role: Role, run: () => Promise<unknown>) => ({ run, organizationId: world.organizationId, sessionId: world.sessions[role] });

const ACTIONS: ActionCase[] = [
  {
    action: "api-keys/actions.ts#createApiKeyAction", permission: "change",
    call: async (role) => {
      const { createApiKeyAction } = await action(() => import("@/app/(dashboard)/api-keys/actions"));
      return inWorld(role, () => createApiKeyAction({}, formOf({ name: "made", role: "viewer" })));
    },
  },
  {
    action: "api-keys/actions.ts#revokeApiKeyAction", permission: "change",
    call: async (role) => {
      const { revokeApiKeyAction } = await action(() => import("@/app/(dashboard)/api-keys/actions"));
      const { id } = await createApiKey({ ctx: world.ctx, input: { name: "to revoke" } });
      return inWorld(role, () => revokeApiKeyAction({}, formOf({ id })));
    },
  },
  {
    action: "deliveries/actions.ts#bulkDeliveriesAction", permission: "change",
    call: async (role) => {
      const { bulkDeliveriesAction } = await action(() => import("@/app/(dashboard)/deliveries/actions"));
      const { endpointId } = await delivery("dead");
      return inWorld(role, () => bulkDeliveriesAction({}, formOf({ intent: "replay:confirm", endpointId })));
    },
  },
  {
    action: "deliveries/[id]/actions.ts#deliveryAction", permission: "change",
    call: async (role) => {
      const { deliveryAction } = await action(() => import("@/app/(dashboard)/deliveries/[id]/actions"));
      const { id } = await delivery("pending");
      return inWorld(role, () => deliveryAction({}, formOf({ id, intent: "bury" })));
    },
  },
  {
    action: "endpoints/actions.ts#createEndpointAction", permission: "change",
    call: async (role) => {
      const { createEndpointAction } = await action(() => import("@/app/(dashboard)/endpoints/actions"));
      return inWorld(role, () => createEndpointAction({}, formOf({ name: "Made", provider: "none", destinationUrl: "http://127.0.0.1:9/hook" })));
    },
  },
  {
    action: "endpoints/[id]/actions.ts#updateEndpointAction", permission: "change",
    call: async (role) => {
      const { updateEndpointAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/actions"));
      const { id } = await endpoint();
      return inWorld(role, () => updateEndpointAction({}, formOf({ id, name: "Renamed", maxAttempts: "3" })));
    },
  },
  {
    action: "endpoints/[id]/actions.ts#setPausedAction", permission: "change",
    call: async (role) => {
      const { setPausedAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/actions"));
      const { id } = await endpoint();
      return inWorld(role, () => setPausedAction(formOf({ id, paused: "true" })));
    },
  },
  {
    action: "endpoints/[id]/actions.ts#deleteEndpointAction", permission: "change",
    call: async (role) => {
      const { deleteEndpointAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/actions"));
      const { id, name } = await endpoint();
      return inWorld(role, () => deleteEndpointAction({}, formOf({ id, confirmName: name })));
    },
  },
  {
    action: "endpoints/[id]/quarantine-actions.ts#reverifyQuarantineAction", permission: "change",
    call: async (role) => {
      const { reverifyQuarantineAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/quarantine-actions"));
      const { id } = await endpoint();
      return inWorld(role, () => reverifyQuarantineAction({}, formOf({ id, intent: "confirm" })));
    },
  },
  {
    action: "endpoints/[id]/secret-actions.ts#rotateSecretAction", permission: "change",
    call: async (role) => {
      const { rotateSecretAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/secret-actions"));
      const { id } = await endpoint();
      return inWorld(role, () => rotateSecretAction({}, formOf({ id })));
    },
  },
  {
    action: "settings/actions.ts#updateOrganizationAction", permission: "change",
    call: async (role) => {
      const { updateOrganizationAction } = await action(() => import("@/app/(dashboard)/settings/actions"));
      return inWorld(role, () => updateOrganizationAction({}, formOf({ name: "Matrix", retentionDays: "11" })));
    },
  },
  {
    // Each call deletes an organization of its own, with the three roles as members.
    action: "settings/actions.ts#deleteOrganizationAction", permission: "delete_organization",
    call: async (role) => {
      const { deleteOrganizationAction } = await action(() => import("@/app/(dashboard)/settings/actions"));
      const doomed = await createOrganizationFixture("Doomed");
      const member = role === "owner" ? { sessionId: await (await import("@/lib/auth/sessions/start-session")).startSession({ userId: doomed.userId, organizationId: doomed.organizationId }) } : await memberWithSession(doomed.organizationId, role);
      return { run: () => deleteOrganizationAction({}, formOf({ confirmName: "Doomed" })), organizationId: doomed.organizationId, sessionId: member.sessionId };
    },
  },
  {
    // Anyone's own account: a member of each role changes their own password (their own user, made for the call).
    action: "account/actions.ts#changePasswordAction", permission: null,
    call: async (role) => {
      const { changePasswordAction } = await action(() => import("@/app/(dashboard)/account/actions"));
      const member = await memberWithSession(world.organizationId, role);
      return { run: () => changePasswordAction({}, formOf({ currentPassword: "a-long-test-password", newPassword: "another-long-password" })), organizationId: world.organizationId, sessionId: member.sessionId };
    },
  },
  {
    action: "organizations/actions.ts#createOrganizationAction", permission: null,
    call: async (role) => {
      const { createOrganizationAction } = await action(() => import("@/app/(dashboard)/organizations/actions"));
      const member = await memberWithSession(world.organizationId, role);
      return { run: () => createOrganizationAction({}, formOf({ name: `${role}'s second` })), organizationId: world.organizationId, sessionId: member.sessionId };
    },
  },
  {
    action: "organizations/actions.ts#switchOrganizationAction", permission: null,
    call: async (role) => {
      const { switchOrganizationAction } = await action(() => import("@/app/(dashboard)/organizations/actions"));
      const member = await memberWithSession(world.organizationId, role);
      return { run: () => switchOrganizationAction(formOf({ organizationId: member.ownOrganizationId })), organizationId: world.organizationId, sessionId: member.sessionId };
    },
  },
  {
    action: "members/actions.ts#inviteMemberAction", permission: "manage_members",
    call: async (role) => {
      const { inviteMemberAction } = await action(() => import("@/app/(dashboard)/members/actions"));
      return inWorld(role, () => inviteMemberAction({}, formOf({ email: newEmail(), role: "viewer" })));
    },
  },
  {
    action: "members/actions.ts#withdrawInvitationAction", permission: "manage_members",
    call: async (role) => {
      const { withdrawInvitationAction } = await action(() => import("@/app/(dashboard)/members/actions"));
      const { id } = await inviteMember({ ctx: world.ctx, input: { email: newEmail(), role: "viewer" } });
      return inWorld(role, () => withdrawInvitationAction({}, formOf({ id })));
    },
  },
  {
    action: "members/actions.ts#changeMemberRoleAction", permission: "manage_members",
    call: async (role) => {
      const { changeMemberRoleAction } = await action(() => import("@/app/(dashboard)/members/actions"));
      const { userId } = await memberWithSession(world.organizationId, "viewer");
      return inWorld(role, () => changeMemberRoleAction({}, formOf({ userId, role: "admin" })));
    },
  },
  {
    action: "members/actions.ts#removeMemberAction", permission: "manage_members",
    call: async (role) => {
      const { removeMemberAction } = await action(() => import("@/app/(dashboard)/members/actions"));
      const { userId } = await memberWithSession(world.organizationId, "viewer");
      return inWorld(role, () => removeMemberAction({}, formOf({ userId })));
    },
  },
];

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
    const before = await organizationState(world.organizationId);
    const refused = await asSession(world.sessions.admin, () => createApiKeyAction({}, formOf({ name: "escalate", role: "owner" })));
    expect(refused.error).toMatch(/only an owner may create an owner key/);
    expect(await organizationState(world.organizationId)).toEqual(before);
    const made = await asSession(world.sessions.owner, () => createApiKeyAction({}, formOf({ name: "owner's", role: "owner" })));
    expect(made.ok).toBe(true);
    const [row] = await getSql()`select role, created_by_user_id from api_keys where id = ${made.id!}`;
    expect(row).toEqual({ role: "owner", created_by_user_id: world.users.owner.userId });
  });
});

// ------------------------------------------------------------------------------------------ coverage
const APP = path.resolve("app");

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? routeFiles(full) : entry.name === "route.ts" ? [full] : [];
  });
}

function actionFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? actionFiles(full) : /actions\.ts$/.test(entry.name) ? [full] : [];
  });
}

describe("the tables cover every route and every action", () => {
  it("lists every method of every app/api/v1 route file", () => {
    const expected = routeFiles(path.join(APP, "api/v1")).flatMap((file) => {
      const route = `/${path.relative(APP, path.dirname(file)).split(path.sep).join("/")}`;
      const methods = [...readFileSync(file, "utf8").matchAll(/export const (GET|POST|PUT|PATCH|DELETE|HEAD)\b/g)].map((m) => m[1]);
      return methods.map((method) => `${method} ${route}`);
    });
    expect(new Set(REST_ROUTES.map((c) => c.route))).toEqual(new Set(expected));
  });

  it("lists every exported function of every dashboard actions file", () => {
    const dashboard = path.join(APP, "(dashboard)");
    const expected = actionFiles(dashboard).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/export async function (\w+)/g)].map((m) => `${path.relative(dashboard, file).split(path.sep).join("/")}#${m[1]}`));
    expect(new Set(ACTIONS.map((c) => c.action))).toEqual(new Set(expected));
  });
});
