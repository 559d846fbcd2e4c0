// Issue #15 point 2, the REST half: every REST route, called with an owner's, an admin's and a viewer's
// API key, is allowed or refused with 403 `forbidden`, and a refusal changes nothing (the organization's
// rows compared before and after). Table-driven: a new route is one line in REST_ROUTES; the coverage
// check at the end fails while a route file's method is missing from it. Server actions:
// role-matrix-actions.int.test.ts.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { can, type Permission } from "@/lib/access/roles";
import { createDestination } from "@/lib/destinations/create-destination";
import { createAlertChannel } from "@/lib/alerts/create-alert-channel";
import { inviteMember } from "@/lib/invitations/invite-member";
import { pullDeliveries } from "@/lib/pull/pull-deliveries";
import { memberWithSession } from "@/test/dashboard-session";
import { useTestDatabase } from "@/test/db";
import { callRoute } from "@/test/fixtures";
import { postIngest } from "@/test/ingest-requests";
import { delivery, destination, endpoint, newEmail, organizationState, ROLES, useRoleMatrixWorld, world } from "@/test/role-matrix";

process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
useTestDatabase();
useRoleMatrixWorld();

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

const alertChannel = async () =>
  (await createAlertChannel({ ctx: world().ctx, input: { name: "Ops", type: "webhook", target: "http://127.0.0.1:9/ops" } })).id;

const destinationParams = async () => {
  const { endpointId, id } = await destination();
  return { id: endpointId, destinationId: id };
};

/** A fresh endpoint with a pull destination holding one delivery, ready or (`leased`) taken by a pull: its lease ids. */
const pullParams = async (leased = false) => {
  const { id: endpointId } = await endpoint("none");
  const made = await createDestination({ ctx: world().ctx, input: { endpointId, body: { name: "laptop", type: "pull" } } });
  expect((await postIngest(endpointId, JSON.stringify({ type: "matrix.event" }), { "content-type": "application/json" })).status).toBe(200);
  const input = { endpointId, destinationId: made.id, body: {} };
  const leaseIds = leased ? (await pullDeliveries({ ctx: world().ctx, input })).data.map((d) => d.leaseId) : [];
  return { params: { id: endpointId, destinationId: made.id }, leaseIds };
};

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
  {
    route: "POST /api/v1/endpoints/[id]/test-event", permission: "change", load: () => import("@/app/api/v1/endpoints/[id]/test-event/route"),
    request: async () => ({ params: { id: (await endpoint()).id }, body: {} }),
  },
  {
    route: "GET /api/v1/endpoints/[id]/destinations", permission: "read", load: () => import("@/app/api/v1/endpoints/[id]/destinations/route"),
    request: async () => ({ params: { id: (await endpoint()).id } }),
  },
  {
    route: "POST /api/v1/endpoints/[id]/destinations", permission: "change", load: () => import("@/app/api/v1/endpoints/[id]/destinations/route"),
    request: async () => ({ params: { id: (await endpoint()).id }, body: { name: "Made", url: "http://127.0.0.1:9/made" } }),
  },
  {
    route: "GET /api/v1/endpoints/[id]/destinations/[destinationId]", permission: "read", load: () => import("@/app/api/v1/endpoints/[id]/destinations/[destinationId]/route"),
    request: async () => ({ params: await destinationParams() }),
  },
  {
    route: "GET /api/v1/endpoints/[id]/destinations/[destinationId]/stats", permission: "read", load: () => import("@/app/api/v1/endpoints/[id]/destinations/[destinationId]/stats/route"),
    request: async () => ({ params: await destinationParams() }),
  },
  {
    route: "PATCH /api/v1/endpoints/[id]/destinations/[destinationId]", permission: "change", load: () => import("@/app/api/v1/endpoints/[id]/destinations/[destinationId]/route"),
    request: async () => ({ params: await destinationParams(), body: { name: "Renamed", paused: true } }),
  },
  {
    route: "DELETE /api/v1/endpoints/[id]/destinations/[destinationId]", permission: "change", load: () => import("@/app/api/v1/endpoints/[id]/destinations/[destinationId]/route"),
    request: async () => ({ params: await destinationParams() }),
  },
  {
    route: "POST /api/v1/endpoints/[id]/destinations/[destinationId]/pull", permission: "change", load: () => import("@/app/api/v1/endpoints/[id]/destinations/[destinationId]/pull/route"),
    request: async () => ({ params: (await pullParams()).params, body: {} }),
  },
  {
    route: "POST /api/v1/endpoints/[id]/destinations/[destinationId]/ack", permission: "change", load: () => import("@/app/api/v1/endpoints/[id]/destinations/[destinationId]/ack/route"),
    request: async () => {
      const { params, leaseIds } = await pullParams(true);
      return { params, body: { leaseIds } };
    },
  },
  {
    route: "POST /api/v1/endpoints/[id]/destinations/[destinationId]/nack", permission: "change", load: () => import("@/app/api/v1/endpoints/[id]/destinations/[destinationId]/nack/route"),
    request: async () => {
      const { params, leaseIds } = await pullParams(true);
      return { params, body: { leaseIds } };
    },
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
    request: async () => ({ params: { userId: (await memberWithSession(world().organizationId, "viewer")).userId }, body: { role: "admin" } }),
  },
  {
    route: "DELETE /api/v1/members/[userId]", permission: "manage_members", load: () => import("@/app/api/v1/members/[userId]/route"),
    request: async () => ({ params: { userId: (await memberWithSession(world().organizationId, "viewer")).userId } }),
  },
  { route: "GET /api/v1/invitations", permission: "manage_members", load: () => import("@/app/api/v1/invitations/route") },
  { route: "POST /api/v1/invitations", permission: "manage_members", load: () => import("@/app/api/v1/invitations/route"), request: async () => ({ body: { email: newEmail(), role: "viewer" } }) },
  {
    route: "DELETE /api/v1/invitations/[id]", permission: "manage_members", load: () => import("@/app/api/v1/invitations/[id]/route"),
    request: async () => ({ params: { id: (await inviteMember({ ctx: world().ctx, input: { email: newEmail(), role: "viewer" } })).id } }),
  },
  { route: "GET /api/v1/audit-log", permission: "read", load: () => import("@/app/api/v1/audit-log/route") },
  { route: "GET /api/v1/alert-channels", permission: "read", load: () => import("@/app/api/v1/alert-channels/route") },
  {
    route: "POST /api/v1/alert-channels", permission: "change", load: () => import("@/app/api/v1/alert-channels/route"),
    request: async () => ({ body: { name: "Made", type: "webhook", target: "http://127.0.0.1:9/made" } }),
  },
  { route: "GET /api/v1/alert-channels/[id]", permission: "read", load: () => import("@/app/api/v1/alert-channels/[id]/route"), request: async () => ({ params: { id: await alertChannel() } }) },
  {
    route: "PATCH /api/v1/alert-channels/[id]", permission: "change", load: () => import("@/app/api/v1/alert-channels/[id]/route"),
    request: async () => ({ params: { id: await alertChannel() }, body: { name: "Renamed" } }),
  },
  { route: "DELETE /api/v1/alert-channels/[id]", permission: "change", load: () => import("@/app/api/v1/alert-channels/[id]/route"), request: async () => ({ params: { id: await alertChannel() } }) },
  { route: "POST /api/v1/alert-channels/[id]/test", permission: "change", load: () => import("@/app/api/v1/alert-channels/[id]/test/route"), request: async () => ({ params: { id: await alertChannel() } }) },
];

/** A refused dry run changes nothing either: the same bulk routes with ?dryRun=true. */
const DRY_RUNS: RestCase[] = REST_ROUTES.filter((c) => /^POST \/api\/v1\/deliveries\/(replay|bury)$/.test(c.route)).map((c) => ({ ...c, route: `${c.route}?dryRun=true` }));

describe("REST: each role is allowed or refused with 403 forbidden, and a refusal changes nothing", () => {
  for (const testCase of [...REST_ROUTES, ...DRY_RUNS]) {
    for (const role of ROLES) {
      const allowed = can({ type: "api_key", apiKeyId: "key", role, onBehalfOfUserId: null }, testCase.permission);
      it(`${testCase.route} with a ${role} key: ${allowed ? "allowed" : "403"}`, async () => {
        const [method, pathAndQuery] = testCase.route.split(" ") as [string, string];
        const handler = (await testCase.load())[method];
        expect(handler, `${method} exported`).toBeTypeOf("function");
        const { params, body } = (await testCase.request?.()) ?? {};
        const before = await organizationState(world().organizationId);
        const res = await callRoute(handler!, { method, path: pathAndQuery.replace("/api/v1", ""), apiKey: world().keys[role], params, body });
        if (allowed) {
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
        } else {
          expect(res.status).toBe(403);
          expect(res.body).toEqual({ error: { code: "forbidden", message: expect.any(String) } });
          expect(await organizationState(world().organizationId)).toEqual(before);
        }
      });
    }
  }

  it("refuses before any other check of the request: a viewer's malformed body, unknown id, control character and bad field all get 403", async () => {
    const { PATCH } = await import("@/app/api/v1/endpoints/[id]/route");
    const { id: existing } = await endpoint();
    const before = await organizationState(world().organizationId);
    for (const [id, body] of [["not-an-id", "{not json"], [existing, { name: "a\u0000b" }], [existing, { plan: "x" }]] as const) {
      const res = await callRoute(PATCH, { method: "PATCH", apiKey: world().keys.viewer, params: { id }, body });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    }
    const { POST } = await import("@/app/api/v1/deliveries/replay/route");
    expect((await callRoute(POST, { method: "POST", path: "/?dryRun=maybe", apiKey: world().keys.viewer, body: { status: "nope" } })).status).toBe(403);
    expect(await organizationState(world().organizationId)).toEqual(before);
  });
});

const APP = path.resolve("app");

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? routeFiles(full) : entry.name === "route.ts" ? [full] : [];
  });
}

describe("the table covers every route", () => {
  it("lists every method of every app/api/v1 route file", () => {
    const expected = routeFiles(path.join(APP, "api/v1")).flatMap((file) => {
      const route = `/${path.relative(APP, path.dirname(file)).split(path.sep).join("/")}`;
      const methods = [...readFileSync(file, "utf8").matchAll(/export const (GET|POST|PUT|PATCH|DELETE|HEAD)\b/g)].map((m) => m[1]);
      return methods.map((method) => `${method} ${route}`);
    });
    expect(new Set(REST_ROUTES.map((c) => c.route))).toEqual(new Set(expected));
  });

});
