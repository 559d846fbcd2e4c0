// Issue #41: a hostile member on a live instance (a production Next server, no SMTP_URL). Each describe is one
// finding of the review, and fails on the code that had it: mailbox links, keys that outlived their owner,
// unbounded invitation mail, and the low items (throttle buckets, invitations of an inviter who lost the right).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { createCtx } from "@/lib/context";
import { acceptInvitationWithNewAccount } from "@/lib/invitations/accept-invitation-with-new-account";
import { lookUpInvitation } from "@/lib/invitations/look-up-invitation";
import { CookieJar, getPage, signInOverHttp } from "@/test/auth-http";
import { memberWithSession } from "@/test/dashboard-session";
import { fetchApi } from "@/test/api-fetch";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { startNextServer, type RunningServer } from "@/test/next-server";

const database = useTestDatabase();
const PASSWORD = "a-long-test-password";
const ORGANIZATION_INVITATION_LIMIT = 6;
let server: RunningServer | undefined;
let url = "";

beforeAll(async () => {
  server = await startNextServer({
    databaseUrl: database.url(),
    env: {
      AUTH_SECRET: process.env.AUTH_SECRET,
      AUTH_SIGNIN_RATE: "1000",
      // The socket peer (loopback) is our proxy: the client's address is the hop before it.
      TRUSTED_PROXIES: "127.0.0.1,::1",
      INVITATION_MAIL_ORGANIZATION_LIMIT: String(ORGANIZATION_INVITATION_LIMIT),
      SMTP_URL: "",
      INBOX_ALLOW_PRIVATE_DESTINATIONS: "true",
    },
  });
  url = server.url;
}, 240_000);
afterAll(async () => {
  await server?.stop();
});

const newEmail = (what: string) => `${what}-${randomBytes(4).toString("hex")}@example.test`;

const api = (key: string, method: string, path: string, body?: unknown) => fetchApi(url, method, path, { key, body });

/** A member of `organizationId` with `role`, signed in over HTTP and working there. */
async function signedInMember(organizationId: string, role: "owner" | "admin" | "viewer") {
  const member = await memberWithSession(organizationId, role);
  await getSql()`update memberships set last_used_at = now() + interval '1 minute' where user_id = ${member.userId} and organization_id = ${organizationId}`;
  const jar = new CookieJar();
  const answer = await signInOverHttp(url, jar, member.email, PASSWORD);
  expect(answer.location).toBe(`${url}/overview`);
  return { ...member, jar };
}

/** The link of the newest mail to `email` that carries one, while it waits to be sent (the test reads the database). */
async function secretLinkTo(organizationId: string, email: string): Promise<string> {
  const [mail] = await getSql()`select secret_link from mails where organization_id = ${organizationId} and ${email} = any(recipients) and carries_secret order by created_at desc limit 1`;
  expect(mail?.secret_link, `a secret link to ${email}`).toMatch(/^http/);
  return mail!.secret_link as string;
}

describe("1 (high): the mailbox never hands an invitation link to a member", () => {
  it("a viewer and the inviting owner see neither the invitation nor its link; the invitee, once a member, sees the mail without it", async () => {
    const acme = await createOrganizationFixture("Acme Mailbox");
    const newHire = newEmail("newhire");
    expect((await api(acme.apiKey, "POST", "/invitations", { email: newHire, role: "owner" })).status).toBe(201);
    const link = await secretLinkTo(acme.organizationId, newHire);
    const token = link.split("/").at(-1)!;

    const viewer = await signedInMember(acme.organizationId, "viewer");
    const owner = await signedInMember(acme.organizationId, "owner");
    for (const who of [viewer, owner]) {
      const page = await getPage(url, "/mailbox", who.jar);
      expect(page.status).toBe(200);
      expect(page.body).toContain("Mailbox");
      expect(page.body).not.toContain(token);
      expect(page.body).not.toContain("/invite/");
      expect(page.body).not.toContain(newHire);
    }

    // The real invitee joins with the link (it reached them), and then sees their own mail, link removed.
    await acceptInvitationWithNewAccount({ token, password: PASSWORD });
    const jar = new CookieJar();
    expect((await signInOverHttp(url, jar, newHire, PASSWORD)).location).toBe(`${url}/overview`);
    const own = await getPage(url, "/mailbox", jar);
    expect(own.body).toContain(newHire);
    expect(own.body).toContain("You are invited to join an organization");
    expect(own.body).toContain("[link removed: it reaches only the recipient]");
    expect(own.body).not.toContain(token);
  });
});

describe("2 (medium): the mailbox cannot confirm a stranger's address for alerts", () => {
  it("the confirmation mail to an outside address is listed to no member, and no page shows its link", async () => {
    const acme = await createOrganizationFixture("Acme Alerts");
    const created = await api(acme.apiKey, "POST", "/endpoints", { name: "Orders", provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/hook" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const stranger = newEmail("stranger");
    expect((await api(acme.apiKey, "PATCH", `/endpoints/${created.body.id}`, { alertEmail: stranger })).status).toBe(200);
    const link = await secretLinkTo(acme.organizationId, stranger);
    expect(link).toContain("/confirm-alert-email/");

    const viewer = await signedInMember(acme.organizationId, "viewer");
    const page = await getPage(url, "/mailbox", viewer.jar);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain(link.split("/").at(-1)!);
    expect(page.body).not.toContain("/confirm-alert-email/");
    expect(page.body).not.toContain(stranger);
  });
});

describe("3 (medium): a key never outlives or outranks its member", () => {
  it("removing a member revokes their keys, a key made with their key included; demoting revokes those above the new role; all audited", async () => {
    const acme = await createOrganizationFixture("Acme Keys");
    const member = await memberWithSession(acme.organizationId, "viewer");
    expect((await api(acme.apiKey, "PATCH", `/members/${member.userId}`, { role: "admin" })).status).toBe(200);
    // As the dashboard makes them: an admin key by the member, and one made with that key.
    const asMember = createCtx(acme.organizationId, { type: "user", userId: member.userId, role: "admin" });
    const adminKey = await createApiKey({ ctx: asMember, input: { name: "mine", role: "admin" } });
    const viewerKey = await createApiKey({ ctx: asMember, input: { name: "mine, read-only", role: "viewer" } });
    const keyMadeKey = await createApiKey({
      ctx: createCtx(acme.organizationId, { type: "api_key", apiKeyId: adminKey.id, role: "admin", onBehalfOfUserId: member.userId }),
      input: { name: "made with a key", role: "admin" },
    });
    for (const key of [adminKey, viewerKey, keyMadeKey]) expect((await api(key.apiKey, "GET", "/endpoints")).status).toBe(200);

    // Demoted to viewer: the admin keys go, the viewer key stays.
    expect((await api(acme.apiKey, "PATCH", `/members/${member.userId}`, { role: "viewer" })).status).toBe(200);
    expect((await api(adminKey.apiKey, "GET", "/endpoints")).status).toBe(401);
    expect((await api(keyMadeKey.apiKey, "PATCH", "/organization", { name: "Taken" })).status).toBe(401);
    expect((await api(viewerKey.apiKey, "GET", "/endpoints")).status).toBe(200);

    // Removed: every key of theirs goes.
    expect((await api(acme.apiKey, "DELETE", `/members/${member.userId}`)).status).toBe(204);
    expect((await api(viewerKey.apiKey, "GET", "/endpoints")).status).toBe(401);
    expect((await api(acme.apiKey, "GET", "/endpoints")).status).toBe(200);
    // The OpenAPI document needs no key: a revoked one sent with it is not even read.
    const document = await fetchApi(url, "GET", "/openapi.json", { key: viewerKey.apiKey });
    expect(document.status).toBe(200);
    expect(document.body.openapi).toBe("3.1.0");
    expect((await fetchApi(url, "GET", "/openapi.json")).body).toEqual(document.body);

    const audit = await api(acme.apiKey, "GET", "/audit-log?action=api_key.revoked");
    const reasons = audit.body.data.map((entry: { target: { id: string }; details: { reason: string } }) => [entry.target.id, entry.details.reason]);
    expect(reasons.sort()).toEqual(
      [
        [adminKey.id, "member_demoted"],
        [keyMadeKey.id, "member_demoted"],
        [viewerKey.id, "member_removed"],
      ].sort(),
    );
  });
});

describe("4 (medium): invitation mail is bounded, and withdrawals are audited", () => {
  it("invite, withdraw and invite again reaches one address at most 3 times a day from one organization: then 429 with Retry-After", async () => {
    const acme = await createOrganizationFixture("Acme Bound");
    const stranger = newEmail("stranger");
    for (let round = 0; round < 3; round++) {
      const invited = await api(acme.apiKey, "POST", "/invitations", { email: stranger, role: "viewer" });
      expect(invited.status, JSON.stringify(invited.body)).toBe(201);
      expect((await api(acme.apiKey, "DELETE", `/invitations/${invited.body.id}`)).status).toBe(204);
    }
    const refused = await api(acme.apiKey, "POST", "/invitations", { email: stranger, role: "viewer" });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limited");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(23 * 3600);
    expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
    const [mails] = await getSql()`select count(*)::int as n from mails where ${stranger} = any(recipients)`;
    expect(mails!.n).toBe(3);
    // The bound is Acme's own: Acme using it up does not stop another organization inviting the same person.
    const globex = await createOrganizationFixture("Globex Bound");
    expect((await api(globex.apiKey, "POST", "/invitations", { email: stranger, role: "viewer" })).status).toBe(201);

    const withdrawn = await api(acme.apiKey, "GET", "/audit-log?action=member.invitation_withdrawn");
    expect(withdrawn.body.data).toHaveLength(3);
    expect(withdrawn.body.data[0]).toMatchObject({ action: "member.invitation_withdrawn", target: { type: "invitation" }, details: { email: stranger, role: "viewer" } });
  });

  it("an organization sends at most INVITATION_MAIL_ORGANIZATION_LIMIT a day, whatever the addresses", async () => {
    const acme = await createOrganizationFixture("Acme Many");
    for (let sent = 0; sent < ORGANIZATION_INVITATION_LIMIT; sent++) {
      expect((await api(acme.apiKey, "POST", "/invitations", { email: newEmail("many"), role: "viewer" })).status).toBe(201);
    }
    const refused = await api(acme.apiKey, "POST", "/invitations", { email: newEmail("many"), role: "viewer" });
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toContain("this organization has sent 6");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("5 (low): invitations do not outlive their inviter's right to invite", () => {
  it("an owner's pending invitations are withdrawn when they are demoted or removed, and their links say so", async () => {
    const acme = await createOrganizationFixture("Acme Inviters");
    const second = await memberWithSession(acme.organizationId, "owner");
    const asSecond = createCtx(acme.organizationId, { type: "user", userId: second.userId, role: "owner" });
    const secondsKey = await createApiKey({ ctx: asSecond, input: { name: "second's", role: "owner" } });
    const byKey = newEmail("by-key");
    expect((await api(secondsKey.apiKey, "POST", "/invitations", { email: byKey, role: "owner" })).status).toBe(201);
    const { inviteMember } = await import("@/lib/invitations/invite-member");
    const bySession = newEmail("by-session");
    await inviteMember({ ctx: asSecond, input: { email: bySession, role: "admin" } });
    const tokens = [await secretLinkTo(acme.organizationId, byKey), await secretLinkTo(acme.organizationId, bySession)].map((link) => link.split("/").at(-1)!);
    const mine = newEmail("first-owner's");
    expect((await api(acme.apiKey, "POST", "/invitations", { email: mine, role: "viewer" })).status).toBe(201);

    expect((await api(acme.apiKey, "PATCH", `/members/${second.userId}`, { role: "admin" })).status).toBe(200);
    const pending = await api(acme.apiKey, "GET", "/invitations");
    expect(pending.body.data.map((invitation: { email: string }) => invitation.email)).toEqual([mine]);
    for (const token of tokens) expect(await lookUpInvitation(token)).toEqual({ state: "withdrawn" });
    const audit = await api(acme.apiKey, "GET", "/audit-log?action=member.invitation_withdrawn");
    expect(audit.body.data.map((entry: { details: { email: string; reason: string } }) => [entry.details.email, entry.details.reason]).sort()).toEqual(
      [
        [byKey, "inviting_key_revoked"],
        [bySession, "inviter_demoted"],
      ].sort(),
    );
  });
});

describe("5 (low): sign-in throttle buckets that cannot be dodged", () => {
  const failedSignIn = (forwardedFor: string) => signInOverHttp(url, new CookieJar(), newEmail("nobody"), "a-wrong-password", { "x-forwarded-for": forwardedFor });
  const counted = async (key: string) => Number((await getSql()`select count from auth_throttles where key = ${key}`)[0]?.count ?? 0);

  it("a forwarded hop that is no address counts in one shared bucket", async () => {
    const before = await counted("address:unparseable");
    await failedSignIn("not-an-address");
    await failedSignIn("999.1.1.1, also garbage");
    expect(await counted("address:unparseable")).toBe(before + 2);
  });

  it("IPv6 addresses count per /64", async () => {
    await failedSignIn("2001:db8:41:7::a");
    await failedSignIn("2001:db8:41:7:ffff:1:2:3");
    await failedSignIn("2001:db8:41:8::a");
    expect(await counted("address:2001:db8:41:7::/64")).toBe(2);
    expect(await counted("address:2001:db8:41:8::/64")).toBe(1);
  });
});
