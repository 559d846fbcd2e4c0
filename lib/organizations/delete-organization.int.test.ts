// Issue #15 point 4: an owner deletes the organization after typing its name. Access ends in that
// transaction (memberships, API keys, sessions moved to another organization or to none); the
// delete-organization job then removes the data in batches, and the row last; nothing of another
// organization is touched, and the job never purges a live organization.
import type { JobHelpers } from "graphile-worker";
import { isRedirectError } from "next/dist/client/components/redirect-error";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { deleteOrganizationTask } from "@/jobs/delete-organization";
import { getDb, getSql } from "@/db";
import { authenticateApiKey } from "@/lib/api-keys/authenticate-api-key";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { recordAudit } from "@/lib/audit/record-audit";
import { requireDashboardSession, requireSignedInUser } from "@/lib/auth/dashboard-ctx";
import { startSession } from "@/lib/sessions/start-session";
import { createCtx } from "@/lib/context";
import { authenticateUser } from "@/lib/auth/authenticate-user";
import { organizationExists } from "@/lib/organizations/organization-exists";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { actionOutcome, asSession, formOf, memberWithSession } from "@/test/dashboard-session";

vi.mock("next/headers", async () => (await import("@/test/dashboard-session")).nextHeadersModule);
vi.mock("next/cache", async () => (await import("@/test/dashboard-session")).nextCacheModule);
vi.mock("@/lib/auth/auth", async () => (await import("@/test/dashboard-session")).authModule);

process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
process.env.ENDPOINT_PURGE_BATCH_SIZE = "2"; // several batches for a few deliveries
useTestDatabase();

const helpers = { job: { id: "test" }, abortSignal: undefined } as unknown as JobHelpers;

async function seed(organizationId: string) {
  const ctx = createCtx(organizationId, { type: "system" });
  for (let e = 0; e < 2; e++) {
    const endpoint = await createEndpointFixture(ctx, "http://127.0.0.1:9/hook", { provider: "standard-webhooks" });
    for (let d = 0; d < 3; d++) await createDeliveryFixture({ ctx, endpointId: endpoint.id, status: "delivered", enqueue: false });
  }
  await getDb().transaction((tx) => recordAudit({ ...ctx, db: tx }, { action: "organization.updated", target: { type: "organization", id: organizationId } }));
}

const counts = async (organizationId: string) => {
  const [row] = await getSql()`
    select (select count(*)::int from organizations where id = ${organizationId}) as organizations,
           (select count(*)::int from endpoints where organization_id = ${organizationId}) as endpoints,
           (select count(*)::int from deliveries where organization_id = ${organizationId}) as deliveries,
           (select count(*)::int from attempts where organization_id = ${organizationId}) as attempts,
           (select count(*)::int from memberships where organization_id = ${organizationId}) as memberships,
           (select count(*)::int from api_keys where organization_id = ${organizationId}) as api_keys,
           (select count(*)::int from sessions where organization_id = ${organizationId}) as sessions,
           (select count(*)::int from audit_log where organization_id = ${organizationId}) as audit_entries`;
  return row!;
};

const jobsFor = async (organizationId: string) =>
  getSql()`select j.payload, j.run_at > now() + interval '30 seconds' as later
           from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
           where t.identifier = 'delete-organization' and j.payload->>'organizationId' = ${organizationId} order by j.id`;

let owner: Awaited<ReturnType<typeof createOrganizationFixture>>;
let other: Awaited<ReturnType<typeof createOrganizationFixture>>;
let ownerSession: string;
let viewer: Awaited<ReturnType<typeof memberWithSession>>;
let lonely: { sessionId: string; email: string };
let adminKey: string;

beforeAll(async () => {
  owner = await createOrganizationFixture("Doomed");
  other = await createOrganizationFixture("Other");
  await seed(owner.organizationId);
  await seed(other.organizationId);
  // The owner also belongs to Other; the viewer has an organization of their own; "lonely" belongs to Doomed only.
  await getSql()`insert into memberships (organization_id, user_id, role) values (${other.organizationId}, ${owner.userId}, 'admin')`;
  ownerSession = await startSession({ userId: owner.userId, organizationId: owner.organizationId });
  viewer = await memberWithSession(owner.organizationId, "viewer");
  const lonelyMember = await memberWithSession(owner.organizationId, "admin");
  await getSql()`delete from memberships where user_id = ${lonelyMember.userId} and organization_id = ${lonelyMember.ownOrganizationId}`;
  lonely = { sessionId: lonelyMember.sessionId, email: lonelyMember.email };
  adminKey = (await createApiKey({ ctx: createCtx(owner.organizationId, { type: "system" }), input: { name: "ci", role: "admin" } })).apiKey;
});

describe("deleting an organization", () => {
  it("is refused until its name is typed, and for anyone but an owner; nothing changes", async () => {
    const { deleteOrganizationAction } = await import("@/app/(dashboard)/settings/actions");
    const before = await counts(owner.organizationId);
    expect(await asSession(ownerSession, () => actionOutcome(() => deleteOrganizationAction(owner.organizationId, {}, formOf({ confirmName: "doomed" }))))).toBe(
      "error: Type the organization's name, “Doomed”, to delete it.",
    );
    expect(await asSession(viewer.sessionId, () => actionOutcome(() => deleteOrganizationAction(owner.organizationId, {}, formOf({ confirmName: "Doomed" }))))).toBe("forbidden");
    expect(await asSession(lonely.sessionId, () => actionOutcome(() => deleteOrganizationAction(owner.organizationId, {}, formOf({ confirmName: "Doomed" }))))).toBe("forbidden");
    expect(await counts(owner.organizationId)).toEqual(before);
    expect(await jobsFor(owner.organizationId)).toEqual([]);
  });

  it("ends every access at once: members, keys and sessions; the owner lands in their other organization, a member with none on the page to create one", async () => {
    const { deleteOrganizationAction } = await import("@/app/(dashboard)/settings/actions");
    const otherBefore = await counts(other.organizationId);
    expect(await asSession(ownerSession, () => actionOutcome(() => deleteOrganizationAction(owner.organizationId, {}, formOf({ confirmName: " Doomed " }))))).toBe("allowed");

    expect(await counts(owner.organizationId)).toMatchObject({ organizations: 1, memberships: 0, api_keys: 0, sessions: 0, endpoints: 2, deliveries: 6 });
    expect(await authenticateApiKey(owner.apiKey)).toBeNull();
    expect(await authenticateApiKey(adminKey)).toBeNull();
    // A key that slipped in as the organization was deleted (a create racing the delete) opens nothing either.
    const late = await createApiKey({ ctx: createCtx(owner.organizationId, { type: "system" }), input: { name: "late" } });
    expect(await authenticateApiKey(late.apiKey)).toBeNull();
    await getSql()`delete from api_keys where id = ${late.id}`;
    expect(await organizationExists(owner.organizationId)).toBe(false); // the CLI makes no key for it
    expect((await asSession(ownerSession, () => requireDashboardSession())).organizationId).toBe(other.organizationId);
    expect((await asSession(viewer.sessionId, () => requireDashboardSession())).organizationId).toBe(viewer.ownOrganizationId);
    expect((await asSession(lonely.sessionId, () => requireSignedInUser())).organizationId).toBeNull();
    const landing = await asSession(lonely.sessionId, () => requireDashboardSession()).catch((error: unknown) => error);
    expect(isRedirectError(landing) && (landing as { digest: string }).digest).toContain("/organizations/new");
    // Signing in again: the owner to Other, the lonely member to no organization (and so to create one).
    expect((await authenticateUser({ email: owner.email, password: "a-long-test-password" }))?.organizationId).toBe(other.organizationId);
    expect((await authenticateUser({ email: lonely.email, password: "a-long-test-password" }))?.organizationId).toBeNull();
    // No way back in.
    const { switchOrganizationAction } = await import("@/app/(dashboard)/organizations/actions");
    await expect(asSession(ownerSession, () => switchOrganizationAction(formOf({ organizationId: owner.organizationId })))).rejects.toThrow("Organization not found.");
    expect(await jobsFor(owner.organizationId)).toEqual([{ payload: { organizationId: owner.organizationId }, later: false }]);
    // Other is as it was, but for the owner's session that moved there.
    expect(await counts(other.organizationId)).toEqual({ ...otherBefore, sessions: otherBefore.sessions + 1 });
  });

  it("the job removes the data in batches, then a final pass a minute later removes the row and what hangs on it", async () => {
    const otherBefore = await counts(other.organizationId);
    // The audit log stays until the organization's row goes (its entries cannot be deleted before).
    const { audit_entries: auditEntries } = await counts(owner.organizationId);
    expect(auditEntries).toBeGreaterThan(0);
    await getSql()`delete from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = 'delete-organization')`;
    await deleteOrganizationTask({ organizationId: owner.organizationId }, helpers);
    expect(await counts(owner.organizationId)).toMatchObject({ organizations: 1, endpoints: 0, deliveries: 0, audit_entries: auditEntries });
    expect(await jobsFor(owner.organizationId)).toEqual([{ payload: { organizationId: owner.organizationId, final: true }, later: true }]);

    await deleteOrganizationTask({ organizationId: owner.organizationId, final: true }, helpers);
    expect(await counts(owner.organizationId)).toEqual({ organizations: 0, endpoints: 0, deliveries: 0, attempts: 0, memberships: 0, api_keys: 0, sessions: 0, audit_entries: 0 });
    // The lonely member's session stays, in no organization.
    expect((await asSession(lonely.sessionId, () => requireSignedInUser())).organizationId).toBeNull();
    expect(await counts(other.organizationId)).toEqual(otherBefore);
  });

  it("the job touches nothing of an organization nobody deleted", async () => {
    const before = await counts(other.organizationId);
    await deleteOrganizationTask({ organizationId: other.organizationId, final: true }, helpers);
    expect(await counts(other.organizationId)).toEqual(before);
    expect(await jobsFor(other.organizationId)).toEqual([]);
  });
});
