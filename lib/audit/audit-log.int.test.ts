// The audit log (API.md "Audit log"): every audited change made through the REST API (and API keys
// through the dashboard's verbs, as a signed-in user) leaves exactly one entry with its actor, target
// and details, and never a secret; dry runs and refused changes leave none; another organization sees
// none of them. The list's filters and paging, retention and the append-only trigger: audit-log-list.int.test.ts.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import * as auditRoute from "@/app/api/v1/audit-log/route";
import * as buryOne from "@/app/api/v1/deliveries/[id]/bury/route";
import * as replayOne from "@/app/api/v1/deliveries/[id]/replay/route";
import * as buryMany from "@/app/api/v1/deliveries/bury/route";
import * as replayMany from "@/app/api/v1/deliveries/replay/route";
import * as endpointRoute from "@/app/api/v1/endpoints/[id]/route";
import * as rotateRoute from "@/app/api/v1/endpoints/[id]/rotate-secret/route";
import * as endpointsRoute from "@/app/api/v1/endpoints/route";
import * as invitationsRoute from "@/app/api/v1/invitations/route";
import * as memberRoute from "@/app/api/v1/members/[userId]/route";
import * as organizationRoute from "@/app/api/v1/organization/route";
import { getSql } from "@/db";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { revokeApiKey } from "@/lib/api-keys/revoke-api-key";
import { createCtx } from "@/lib/context";
import { changeInChunks } from "@/lib/delivery/change-in-chunks";
import { acceptInvitationWithNewAccount } from "@/lib/invitations/accept-invitation-with-new-account";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import type { AuditEntryView } from "./list-audit-log";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
process.env.DELIVERY_LOG = "problems";

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;
let acme: Org;
let globex: Org;
beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
  globex = await createOrganizationFixture("Globex");
});

const REST_IP = "203.0.113.7";
const DASHBOARD_IP = "198.51.100.9";
/** A Standard Webhooks secret (whsec_ + base64 of 32 bytes), different each call. */
const whsec = () => `whsec_${randomBytes(32).toString("base64")}`;

type Handler = Parameters<typeof callRoute>[0];
const rest = (handler: Handler, apiKey: string, method: string, path: string, options: { id?: string; body?: unknown } = {}) =>
  callRoute(handler, { method, apiKey, path, params: options.id ? { id: options.id } : {}, body: options.body, headers: { "x-forwarded-for": REST_IP } });

async function auditLogOf(apiKey: string, query = ""): Promise<{ status: number; body: { data: AuditEntryView[]; nextCursor: string | null; error?: { code: string } } }> {
  return callRoute(auditRoute.GET, { apiKey, path: `/api/v1/audit-log?limit=200${query}` });
}

async function keyIdOf(organizationId: string, name: string): Promise<string> {
  const [row] = await getSql()<{ id: string }[]>`select id from api_keys where organization_id = ${organizationId} and name = ${name}`;
  return row!.id;
}

describe("every audited change", () => {
  it("leaves exactly one entry each, with actor, target and details, no secret, none for dry runs, refusals or another organization", async () => {
    const before = new Set((await auditLogOf(acme.apiKey)).body.data.map((entry) => entry.id));
    const globexBefore = (await auditLogOf(globex.apiKey)).body.data;
    const secrets: string[] = [acme.apiKey, globex.apiKey];
    const key = acme.apiKey;

    // endpoint.created: a generated signing secret and a given outbound secret.
    const outboundSecret = whsec();
    secrets.push(outboundSecret);
    const created = await rest(endpointsRoute.POST, key, "POST", "/api/v1/endpoints", {
      body: { name: "Billing", provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/hook", outboundSecret },
    });
    expect(created.status).toBe(201);
    const endpointId: string = created.body.id;
    secrets.push(created.body.secret);

    // endpoint.updated: two settings and the secret.
    const newSecret = whsec();
    secrets.push(newSecret);
    const patched = await rest(endpointRoute.PATCH, key, "PATCH", `/api/v1/endpoints/${endpointId}`, {
      id: endpointId,
      body: { name: "Billing v2", maxAttempts: 3, timeoutMs: 15_000, secret: newSecret },
    });
    expect(patched.status).toBe(200);

    // endpoint.secret_rotated: generated, and returned once.
    const rotated = await rest(rotateRoute.POST, key, "POST", `/api/v1/endpoints/${endpointId}/rotate-secret`, { id: endpointId, body: {} });
    expect(rotated.status).toBe(200);
    secrets.push(rotated.body.secret);

    // delivery.replayed, delivery.buried: one delivery each.
    const dead = await createDeliveryFixture({ ctx: acme.ctx, endpointId, status: "dead", enqueue: false });
    const pending = await createDeliveryFixture({ ctx: acme.ctx, endpointId });
    expect((await rest(replayOne.POST, key, "POST", `/api/v1/deliveries/${dead.id}/replay`, { id: dead.id })).status).toBe(202);
    expect((await rest(buryOne.POST, key, "POST", `/api/v1/deliveries/${pending.id}/bury`, { id: pending.id })).status).toBe(200);

    // deliveries.replayed (the filter's endpoint) after a dry run; deliveries.buried (the organization).
    const replayFilter = { endpointId, status: "dead" };
    const dry = await rest(replayMany.POST, key, "POST", "/api/v1/deliveries/replay?dryRun=true", { body: replayFilter });
    expect(dry).toMatchObject({ status: 200, body: { count: 1 } });
    const replayedMany = await rest(replayMany.POST, key, "POST", "/api/v1/deliveries/replay", { body: replayFilter });
    expect(replayedMany).toMatchObject({ status: 202, body: { count: 1 } });
    const buryFilter = { status: "pending", eventType: "test.*" };
    expect((await rest(buryMany.POST, key, "POST", "/api/v1/deliveries/bury?dryRun=true", { body: buryFilter })).status).toBe(200);
    const buriedMany = await rest(buryMany.POST, key, "POST", "/api/v1/deliveries/bury", { body: buryFilter });
    // Both deliveries are pending again by now (replayed one by one, then in bulk).
    expect(buriedMany).toMatchObject({ status: 200, body: { count: 2 } });

    // organization.updated
    expect((await rest(organizationRoute.PATCH, key, "PATCH", "/api/v1/organization", { body: { name: "Acme Corp", retentionDays: 30 } })).status).toBe(200);

    // Refused changes: validation errors and a 409 record nothing.
    expect((await rest(endpointsRoute.POST, key, "POST", "/api/v1/endpoints", { body: { name: "", provider: "none", destinationUrl: "http://127.0.0.1:9/x" } })).status).toBe(400);
    expect((await rest(endpointRoute.PATCH, key, "PATCH", `/api/v1/endpoints/${endpointId}`, { id: endpointId, body: { maxAttempts: 0, secret: whsec() } })).status).toBe(400);
    expect((await rest(rotateRoute.POST, key, "POST", `/api/v1/endpoints/${endpointId}/rotate-secret`, { id: endpointId, body: { gracePeriodSeconds: -1 } })).status).toBe(400);
    expect((await rest(organizationRoute.PATCH, key, "PATCH", "/api/v1/organization", { body: { retentionDays: 0 } })).status).toBe(400);
    expect((await rest(replayMany.POST, key, "POST", "/api/v1/deliveries/replay", { body: { statuss: "dead" } })).status).toBe(400);
    const inFlight = await createDeliveryFixture({ ctx: acme.ctx, endpointId, enqueue: false });
    await getSql()`update deliveries set status = 'delivering' where id = ${inFlight.id}`;
    expect((await rest(replayOne.POST, key, "POST", `/api/v1/deliveries/${inFlight.id}/replay`, { id: inFlight.id })).status).toBe(409);
    // Another organization's endpoint: 404, nothing recorded anywhere.
    expect((await rest(endpointRoute.DELETE, globex.apiKey, "DELETE", `/api/v1/endpoints/${endpointId}`, { id: endpointId })).status).toBe(404);
    // Changing nothing changes nothing: a dead delivery buried again, an empty organization PATCH.
    expect((await rest(buryOne.POST, key, "POST", `/api/v1/deliveries/${pending.id}/bury`, { id: pending.id })).status).toBe(200);
    expect((await rest(organizationRoute.PATCH, key, "PATCH", "/api/v1/organization", { body: {} })).status).toBe(200);

    // api_key.created, api_key.revoked: the dashboard's verbs, as the signed-in owner.
    const dashboard = createCtx(acme.organizationId, { type: "user", userId: acme.userId, role: "owner" }, undefined, DASHBOARD_IP);
    const newKey = await createApiKey({ ctx: dashboard, input: { name: "CI deploys", role: "viewer" } });
    secrets.push(newKey.apiKey);
    await revokeApiKey({ ctx: dashboard, input: { id: newKey.id } });

    // endpoint.deleted, last.
    expect((await rest(endpointRoute.DELETE, key, "DELETE", `/api/v1/endpoints/${endpointId}`, { id: endpointId })).status).toBe(204);

    const list = await auditLogOf(acme.apiKey);
    expect(list.status).toBe(200);
    const entries = list.body.data.filter((entry) => !before.has(entry.id));
    const keyActor = { type: "api_key", id: await keyIdOf(acme.organizationId, "test"), label: "test" };
    const userActor = { type: "user", id: acme.userId, label: acme.email };
    const endpointTarget = { type: "endpoint", id: endpointId };
    const expected = [
      { action: "endpoint.deleted", actor: keyActor, target: endpointTarget, details: { name: "Billing v2" }, ip: REST_IP },
      { action: "api_key.revoked", actor: userActor, target: { type: "api_key", id: newKey.id }, details: { name: "CI deploys", role: "viewer" }, ip: DASHBOARD_IP },
      { action: "api_key.created", actor: userActor, target: { type: "api_key", id: newKey.id }, details: { name: "CI deploys", role: "viewer" }, ip: DASHBOARD_IP },
      {
        action: "organization.updated", actor: keyActor, target: { type: "organization", id: acme.organizationId },
        details: { fields: ["name"], changes: { name: "Acme Corp" } }, ip: REST_IP,
      },
      {
        action: "deliveries.buried", actor: keyActor, target: { type: "organization", id: acme.organizationId },
        details: { filter: buryFilter, count: 2 }, ip: REST_IP,
      },
      { action: "deliveries.replayed", actor: keyActor, target: endpointTarget, details: { filter: replayFilter, count: 1 }, ip: REST_IP },
      { action: "delivery.buried", actor: keyActor, target: { type: "delivery", id: pending.id }, details: { endpointId }, ip: REST_IP },
      { action: "delivery.replayed", actor: keyActor, target: { type: "delivery", id: dead.id }, details: { endpointId }, ip: REST_IP },
      {
        action: "endpoint.secret_rotated", actor: keyActor, target: endpointTarget,
        details: { generated: true, previousSecretValidUntil: rotated.body.previousSecretValidUntil }, ip: REST_IP,
      },
      {
        action: "endpoint.updated", actor: keyActor, target: endpointTarget,
        details: { fields: ["name", "maxAttempts", "secret"], changes: { name: "Billing v2", maxAttempts: 3 } }, ip: REST_IP,
      },
      {
        action: "endpoint.created", actor: keyActor, target: endpointTarget,
        details: expect.objectContaining({ name: "Billing", provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/hook", maxAttempts: 8 }),
        ip: REST_IP,
      },
    ];
    // Exactly these, one each, newest first.
    expect(entries).toEqual(expected.map((entry) => ({ id: expect.any(String), at: expect.any(String), ...entry })));

    // No secret or API key value in any entry, as answered or as stored.
    const stored = await getSql()<{ row: unknown }[]>`select to_jsonb(a) as row from audit_log a`;
    for (const text of [...entries.map((entry) => JSON.stringify(entry)), ...stored.map(({ row }) => JSON.stringify(row))]) {
      for (const secret of secrets) {
        expect(secret.length).toBeGreaterThan(20);
        expect(text).not.toContain(secret);
        expect(text).not.toContain(secret.replace(/^whsec_/, ""));
      }
    }

    // None of it in the other organization's log, which is as it was.
    expect((await auditLogOf(globex.apiKey)).body.data).toEqual(globexBefore);
    const [{ n }] = await getSql()<{ n: number }[]>`
      select count(*)::int as n from audit_log where organization_id <> ${acme.organizationId} and (target_id = ${endpointId} or actor_id = ${keyActor.id})`;
    expect(n).toBe(0);
  });

  it("records member.invited, member.joined, member.role_changed and member.removed once each, never the link's token", async () => {
    const before = new Set((await auditLogOf(acme.apiKey)).body.data.map((entry) => entry.id));
    const globexBefore = (await auditLogOf(globex.apiKey)).body.data;
    const email = `teammate-${randomBytes(4).toString("hex")}@example.test`;
    const invited = await callRoute(invitationsRoute.POST, { method: "POST", apiKey: acme.apiKey, body: { email, role: "viewer" }, headers: { "x-forwarded-for": REST_IP } });
    expect(invited.status).toBe(201);
    const [mail] = await getSql()<{ secret_link: string }[]>`select secret_link from mails where organization_id = ${acme.organizationId} and ${email} = any(recipients)`;
    const token = /\/invite\/([A-Za-z0-9_-]{43})$/.exec(mail!.secret_link)![1]!;
    const joined = await acceptInvitationWithNewAccount({ token, password: "a-long-teammate-password", ip: DASHBOARD_IP });
    const member = (userId: string, method: "PATCH" | "DELETE", body?: unknown) =>
      callRoute(method === "PATCH" ? memberRoute.PATCH : memberRoute.DELETE, { method, apiKey: acme.apiKey, params: { userId }, body, headers: { "x-forwarded-for": REST_IP } });
    // Refused: an unknown role, the last owner's demotion (409); unchanged: the same role again.
    expect((await member(joined.userId, "PATCH", { role: "superuser" })).status).toBe(400);
    expect((await member(acme.userId, "PATCH", { role: "viewer" })).status).toBe(409);
    expect((await member(joined.userId, "PATCH", { role: "viewer" })).status).toBe(200);
    expect((await member(joined.userId, "PATCH", { role: "admin" })).status).toBe(200);
    expect((await member(joined.userId, "DELETE")).status).toBe(204);

    const entries = (await auditLogOf(acme.apiKey)).body.data.filter((entry) => !before.has(entry.id));
    const keyActor = { type: "api_key", id: await keyIdOf(acme.organizationId, "test"), label: "test" };
    const memberTarget = { type: "member", id: joined.userId };
    expect(entries).toEqual([
      { action: "member.removed", actor: keyActor, target: memberTarget, details: { role: "admin" }, ip: REST_IP },
      { action: "member.role_changed", actor: keyActor, target: memberTarget, details: { from: "viewer", to: "admin" }, ip: REST_IP },
      {
        action: "member.joined", actor: { type: "user", id: joined.userId, label: email }, target: memberTarget,
        details: { role: "viewer", invitationId: invited.body.id }, ip: DASHBOARD_IP,
      },
      { action: "member.invited", actor: keyActor, target: { type: "invitation", id: invited.body.id }, details: { email, role: "viewer" }, ip: REST_IP },
    ].map((entry) => ({ id: expect.any(String), at: expect.any(String), ...entry })));
    expect(JSON.stringify(await getSql()`select * from audit_log`)).not.toContain(token);
    expect((await auditLogOf(globex.apiKey)).body.data).toEqual(globexBefore);
  });

  it("records a bulk change spread over several transactions as one entry with the whole count", async () => {
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/hook");
    await getSql()`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, event_type, status, size_bytes)
      select 'dlv_' || lpad(to_hex(n), 25, '0'), ${acme.organizationId}, ${endpoint.id}, ${defaultDestinationId(endpoint.id)}, 'evt_bulk_' || n, 'bulk.test', 'dead', 2
      from generate_series(1, 1050) as n`;
    const res = await rest(replayMany.POST, acme.apiKey, "POST", "/api/v1/deliveries/replay", { body: { endpointId: endpoint.id } });
    expect(res).toMatchObject({ status: 202, body: { count: 1050 } });
    const entries = (await auditLogOf(acme.apiKey, "&action=deliveries.replayed")).body.data.filter((entry) => entry.target.id === endpoint.id);
    expect(entries).toEqual([expect.objectContaining({ details: { filter: { endpointId: endpoint.id }, count: 1050 } })]);
  });

  it("records what a bulk change committed before a later chunk failed, marked interrupted", async () => {
    const ctx = createCtx(acme.organizationId, { type: "system" });
    const failing = changeInChunks(ctx, {
      action: "deliveries.buried",
      filter: { eventType: "interrupted.test" },
      pages: (async function* () {
        yield* [{ ids: ["first"], last: false }, { ids: ["second"], last: false }, { ids: ["third"], last: true }];
      })(),
      change: async (_tx, ids) => {
        if (ids[0] === "third") throw new Error("the third chunk fails");
        return 500;
      },
    });
    await expect(failing).rejects.toThrow("the third chunk fails");
    const entries = (await auditLogOf(acme.apiKey, "&action=deliveries.buried&actorType=system")).body.data;
    expect(entries.map((entry) => entry.details)).toEqual([{ filter: { eventType: "interrupted.test" }, count: 1000, interrupted: true }]);
  });
});
