// Issue #15 point 3: a user in two organizations sees and changes only the current one's data, switches
// only to an organization they belong to, and signs in to the one they used last.
import { beforeAll, describe, expect, it, vi } from "vitest";
import { getSql } from "@/db";
import { requireDashboardCtx, requireSignedInUser } from "@/lib/auth/dashboard-ctx";
import { startSession } from "@/lib/sessions/start-session";
import { createCtx } from "@/lib/context";
import { listDeliveries } from "@/lib/delivery/list-deliveries";
import { listEndpoints } from "@/lib/endpoints/list-endpoints";
import { authenticateUser } from "@/lib/auth/authenticate-user";
import { getOrganization } from "@/lib/organizations/get-organization";
import { getSignedInUser } from "@/lib/organizations/get-signed-in-user";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { actionOutcome, asSession, formOf } from "@/test/dashboard-session";

vi.mock("next/headers", async () => (await import("@/test/dashboard-session")).nextHeadersModule);
vi.mock("next/cache", async () => (await import("@/test/dashboard-session")).nextCacheModule);
vi.mock("@/lib/auth/auth", async () => (await import("@/test/dashboard-session")).authModule);

process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
useTestDatabase();

type Org = { organizationId: string; endpointId: string; endpointName: string; deliveryId: string };
let user: Awaited<ReturnType<typeof createOrganizationFixture>>;
let alpha: Org;
let beta: Org;
let sessionId: string;

async function withData(organizationId: string): Promise<Org> {
  const ctx = createCtx(organizationId, { type: "system" });
  const endpoint = await createEndpointFixture(ctx, "http://127.0.0.1:9/hook", { provider: "standard-webhooks" });
  const { id } = await createDeliveryFixture({ ctx, endpointId: endpoint.id, status: "dead", enqueue: false });
  return { organizationId, endpointId: endpoint.id, endpointName: endpoint.name, deliveryId: id };
}

const stateOf = async (organizationId: string) =>
  getSql()`select (select string_agg(concat_ws('|', e.id, e.name, d.paused, e.secret_encrypted, e.updated_at, d.updated_at), ',' order by e.id)
                    from endpoints e join destinations d on d.endpoint_id = e.id and d.is_default where e.organization_id = ${organizationId}) as endpoints,
                  (select string_agg(concat_ws('|', id, status, updated_at), ',' order by id) from deliveries where organization_id = ${organizationId}) as deliveries,
                  (select concat_ws('|', name, retention_days) from organizations where id = ${organizationId}) as organization`;

beforeAll(async () => {
  user = await createOrganizationFixture("Alpha");
  alpha = await withData(user.organizationId);
  const other = await createOrganizationFixture("Beta");
  await getSql()`insert into memberships (organization_id, user_id, role) values (${other.organizationId}, ${user.userId}, 'admin')`;
  beta = await withData(other.organizationId);
  sessionId = await startSession({ userId: user.userId, organizationId: alpha.organizationId });
});

const switchTo = async (organizationId: string) => {
  const { switchOrganizationAction } = await import("@/app/(dashboard)/organizations/actions");
  return asSession(sessionId, () => actionOutcome(() => switchOrganizationAction(formOf({ organizationId }))));
};

describe("while in one organization, the other's data is out of sight and out of reach", () => {
  for (const [here, there] of [["alpha", "beta"], ["beta", "alpha"]] as const) {
    it(`in ${here}: pages' reads list only ${here}'s, and every action on ${there}'s ids is not found, changing nothing`, async () => {
      const current = here === "alpha" ? alpha : beta;
      const other = there === "alpha" ? alpha : beta;
      expect(await switchTo(current.organizationId)).toBe("allowed");
      await asSession(sessionId, async () => {
        const ctx = await requireDashboardCtx();
        expect(ctx.organizationId).toBe(current.organizationId);
        expect((await getOrganization({ ctx })).id).toBe(current.organizationId);
        expect((await listEndpoints({ ctx, input: { limit: 200 } })).data.map((e) => e.id)).toEqual([current.endpointId]);
        expect((await listDeliveries({ ctx, input: { limit: 50 } })).data.map((d) => d.id)).toEqual([current.deliveryId]);
        // Searching by the other's endpoint finds nothing.
        expect((await listDeliveries({ ctx, input: { endpointId: other.endpointId, limit: 50 } })).data).toEqual([]);
      });

      const before = await stateOf(other.organizationId);
      const endpointActions = await import("@/app/(dashboard)/endpoints/[id]/actions");
      const { deliveryAction } = await import("@/app/(dashboard)/deliveries/[id]/actions");
      const { bulkDeliveriesAction } = await import("@/app/(dashboard)/deliveries/actions");
      const { rotateSecretAction } = await import("@/app/(dashboard)/endpoints/[id]/secret-actions");
      const { reverifyQuarantineAction } = await import("@/app/(dashboard)/endpoints/[id]/quarantine-actions");
      const outcomes = await asSession(sessionId, async () => ({
        replay: await actionOutcome(() => deliveryAction(current.organizationId, {}, formOf({ id: other.deliveryId, intent: "replay" }))),
        update: await actionOutcome(() => endpointActions.updateEndpointAction(current.organizationId, {}, formOf({ id: other.endpointId, name: "Taken over" }))),
        remove: await actionOutcome(() => endpointActions.deleteEndpointAction(current.organizationId, {}, formOf({ id: other.endpointId, confirmName: other.endpointName }))),
        rotate: await actionOutcome(() => rotateSecretAction(current.organizationId, {}, formOf({ id: other.endpointId }))),
        reverify: await actionOutcome(() => reverifyQuarantineAction(current.organizationId, {}, formOf({ id: other.endpointId, intent: "confirm" }))),
      }));
      expect(outcomes).toEqual({
        replay: "error: Delivery not found.",
        update: "error: Endpoint not found.",
        remove: "error: Endpoint not found.",
        rotate: "error: Endpoint not found.",
        reverify: "error: Endpoint not found.",
      });
      await expect(asSession(sessionId, () => endpointActions.setPausedAction(current.organizationId, formOf({ id: other.endpointId, paused: "true" })))).rejects.toThrow("Endpoint not found.");
      // A bulk replay naming the other's endpoint: not found either.
      const bulk = await asSession(sessionId, () => actionOutcome(() => bulkDeliveriesAction(current.organizationId, {}, formOf({ intent: "replay:confirm", endpointId: other.endpointId }))));
      expect(bulk).toBe("error: Endpoint not found.");
      expect(await stateOf(other.organizationId)).toEqual(before);
    });
  }

  it("a form rendered for one organization is refused once the session has switched to another, changing nothing", async () => {
    // Settings opened in alpha in one tab; another tab switches the session to beta; the first tab submits.
    expect(await switchTo(beta.organizationId)).toBe("allowed");
    const before = { alpha: await stateOf(alpha.organizationId), beta: await stateOf(beta.organizationId) };
    const { updateOrganizationAction } = await import("@/app/(dashboard)/settings/actions");
    const { bulkDeliveriesAction } = await import("@/app/(dashboard)/deliveries/actions");
    const { createApiKeyAction } = await import("@/app/(dashboard)/api-keys/actions");
    const outcomes = await asSession(sessionId, async () => ({
      settings: await actionOutcome(() => updateOrganizationAction(alpha.organizationId, {}, formOf({ name: "Renamed", retentionDays: "9" }))),
      bulk: await actionOutcome(() => bulkDeliveriesAction(alpha.organizationId, {}, formOf({ intent: "bury:confirm" }))),
      key: await actionOutcome(() => createApiKeyAction(alpha.organizationId, {}, formOf({ name: "stray", role: "viewer" }))),
    }));
    const refused = "error: This page was opened in another organization, and you have switched since: reload it to act here. Nothing was changed.";
    expect(outcomes).toEqual({ settings: refused, bulk: refused, key: refused });
    expect({ alpha: await stateOf(alpha.organizationId), beta: await stateOf(beta.organizationId) }).toEqual(before);
    // Rendered for beta, the session's organization: it acts.
    const renamed = await asSession(sessionId, () => actionOutcome(() => updateOrganizationAction(beta.organizationId, {}, formOf({ name: "Beta", retentionDays: "9" }))));
    expect(renamed).toBe("allowed");
  });
});

describe("switching", () => {
  it("lists the user's organizations, refuses one they do not belong to (404, session unchanged), and sign-in opens the last used", async () => {
    expect((await getSignedInUser({ input: { userId: user.userId } })).organizations.map((o) => [o.name, o.role])).toEqual([["Alpha", "owner"], ["Beta", "admin"]]);
    expect(await switchTo(beta.organizationId)).toBe("allowed");
    const stranger = await createOrganizationFixture("Stranger");
    await expect(switchTo(stranger.organizationId)).rejects.toThrow("Organization not found.");
    await expect(switchTo("org_not-even-an-id")).rejects.toThrow("Organization not found.");
    expect((await asSession(sessionId, () => requireSignedInUser())).organizationId).toBe(beta.organizationId);
    expect((await authenticateUser({ email: user.email, password: "a-long-test-password" }))?.organizationId).toBe(beta.organizationId);
    expect(await switchTo(alpha.organizationId)).toBe("allowed");
    expect((await authenticateUser({ email: user.email, password: "a-long-test-password" }))?.organizationId).toBe(alpha.organizationId);
  });

  it("creating an organization makes the user its owner and switches to it", async () => {
    const { createOrganizationAction } = await import("@/app/(dashboard)/organizations/actions");
    expect(await asSession(sessionId, () => actionOutcome(() => createOrganizationAction({}, formOf({ name: "  Gamma " }))))).toBe("allowed");
    const ctx = await asSession(sessionId, () => requireDashboardCtx("delete_organization"));
    expect(await getOrganization({ ctx })).toMatchObject({ name: "Gamma" });
    expect(ctx.actor.role).toBe("owner");
    expect(await asSession(sessionId, () => actionOutcome(() => createOrganizationAction({}, formOf({ name: " " }))))).toBe("error: Name must not be empty");
  });
});
