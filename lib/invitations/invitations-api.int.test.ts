// Invitations over REST and their links: invite (mail queued, token stored only as its sha256, audited),
// list pending, withdraw; accepting with a new account or a signed-in one; dead links (unknown, used,
// withdrawn, expired) refused; another organization's invitation is 404; admin and viewer keys get 403.
import { randomBytes } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import * as invitationRoute from "@/app/api/v1/invitations/[id]/route";
import * as invitationsRoute from "@/app/api/v1/invitations/route";
import { getSql } from "@/db";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { authenticateUser } from "@/lib/auth/authenticate-user";
import { checkSession } from "@/lib/sessions/check-session";
import { startSession } from "@/lib/sessions/start-session";
import { newId } from "@/lib/ids";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { acceptInvitation } from "./accept-invitation";
import { acceptInvitationWithNewAccount } from "./accept-invitation-with-new-account";
import { hashInvitationToken } from "./invitation-token";
import { lookUpInvitation } from "./look-up-invitation";

useTestDatabase();

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;
let acme: Org;
beforeEach(async () => {
  acme = await createOrganizationFixture("Acme");
});

const PASSWORD = "a-long-invitee-password";
const newEmail = () => `invitee-${randomBytes(4).toString("hex")}@example.test`;
const invite = (apiKey: string, body: unknown) => callRoute(invitationsRoute.POST, { method: "POST", apiKey, body });
const withdraw = (apiKey: string, id: string) => callRoute(invitationRoute.DELETE, { method: "DELETE", apiKey, params: { id } });
const pending = async (apiKey: string) => (await callRoute(invitationsRoute.GET, { apiKey })).body.data as Array<{ id: string; email: string }>;

/** The token, read out of the queued invitation mail's secret link (the only place it exists until the mail is sent). */
async function tokenFromMail(organizationId: string, email: string): Promise<string> {
  const [mail] = await getSql()`select secret_link from mails where organization_id = ${organizationId} and ${email} = any(recipients) order by created_at desc limit 1`;
  const token = /\/invite\/([A-Za-z0-9_-]{43})$/.exec(String(mail?.secret_link))?.[1];
  expect(token, "the mail's link").toBeDefined();
  return token!;
}

async function invited(org: Org, role = "admin", email = newEmail()) {
  const res = await invite(org.apiKey, { email, role });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id as string, email, token: await tokenFromMail(org.organizationId, email) };
}

describe("POST /api/v1/invitations", () => {
  it("answers 201 {id, email, role, expiresAt in 7 days}, stores only the token's sha256, queues the mail and records member.invited", async () => {
    const before = Date.now();
    const res = await invite(acme.apiKey, { email: "  New.Person@Example.TEST ", role: "viewer" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^inv_/), email: "new.person@example.test", role: "viewer", expiresAt: expect.any(String) });
    const expiresIn = new Date(res.body.expiresAt).getTime() - before;
    expect(expiresIn).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(expiresIn).toBeLessThan(7 * 86_400_000 + 60_000);

    const token = await tokenFromMail(acme.organizationId, "new.person@example.test");
    const [row] = await getSql()`select * from invitations where id = ${res.body.id}`;
    expect(row!.token_hash).toBe(hashInvitationToken(token));
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row).toMatchObject({ organization_id: acme.organizationId, invited_by_user_id: null, accepted_at: null, withdrawn_at: null });
    expect(JSON.stringify(res.body)).not.toContain(token);

    const [mail] = await getSql()`select recipients, subject, text_body, html_body, secret_link, carries_secret from mails where organization_id = ${acme.organizationId}`;
    expect(mail).toMatchObject({ recipients: ["new.person@example.test"], subject: "[Webhook Inbox] You are invited to join an organization", carries_secret: true });
    // The link waits apart from the bodies, which hold its place: no page that shows a body can show it.
    expect(mail!.secret_link).toBe(`http://inbox.test/invite/${token}`);
    expect(mail!.text_body).not.toContain(token);
    expect(mail!.html_body).not.toContain(token);
    expect(mail!.text_body).toContain("viewer");
    const jobs = await getSql()`select payload from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = 'send-mail' and j.payload->>'organizationId' = ${acme.organizationId}`;
    expect(jobs).toHaveLength(1);

    const audit = await getSql()`select action, actor_type, target_type, target_id, details from audit_log where organization_id = ${acme.organizationId} and action like 'member.%'`;
    expect(audit).toEqual([{ action: "member.invited", actor_type: "api_key", target_type: "invitation", target_id: res.body.id, details: { email: "new.person@example.test", role: "viewer" } }]);
    expect(JSON.stringify(await getSql()`select * from audit_log`)).not.toContain(token);
  });

  it("refuses wrong roles, bad emails and unknown fields with 400, and stores nothing", async () => {
    const cases: unknown[] = [
      { email: newEmail(), role: "member" },
      { email: newEmail(), role: "Owner" },
      { email: newEmail(), role: "" },
      { email: newEmail() },
      { email: newEmail(), role: ["admin"] },
      { email: "not-an-email", role: "admin" },
      { email: "", role: "admin" },
      { role: "admin" },
      { email: newEmail(), role: "admin", organizationId: "org_x" },
      "[1]",
    ];
    for (const body of cases) {
      const res = await invite(acme.apiKey, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
    }
    expect(await getSql()`select id from invitations where organization_id = ${acme.organizationId}`).toEqual([]);
    expect(await getSql()`select id from mails where organization_id = ${acme.organizationId}`).toEqual([]);
  });

  it("answers 409 for an address that is a member already or holds a pending invitation", async () => {
    expect((await invite(acme.apiKey, { email: acme.email.toUpperCase(), role: "admin" })).status).toBe(409);
    const { email, id } = await invited(acme, "admin");
    const again = await invite(acme.apiKey, { email, role: "viewer" });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/pending invitation/);
    expect((await withdraw(acme.apiKey, id)).status).toBe(204);
    expect((await invite(acme.apiKey, { email, role: "viewer" })).status).toBe(201);
  });

  it("answers 403 to admin and viewer keys for every invitation call, and changes nothing", async () => {
    const { id } = await invited(acme);
    for (const role of ["admin", "viewer"] as const) {
      const { apiKey } = await createApiKey({ ctx: acme.ctx, input: { name: role, role } });
      for (const res of [await invite(apiKey, { email: newEmail(), role: "admin" }), await callRoute(invitationsRoute.GET, { apiKey }), await withdraw(apiKey, id)]) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("forbidden");
      }
    }
    expect((await pending(acme.apiKey)).map((i) => i.id)).toEqual([id]);
  });
});

describe("GET and DELETE /api/v1/invitations", () => {
  it("lists pending invitations only, of this organization only; withdrawing is 204 and then 404", async () => {
    const first = await invited(acme, "admin");
    const second = await invited(acme, "viewer");
    const expired = await invited(acme, "viewer");
    await getSql()`update invitations set expires_at = now() - interval '1 second' where id = ${expired.id}`;
    const globex = await createOrganizationFixture("Globex");
    const theirs = await invited(globex, "admin");

    const listed = await callRoute(invitationsRoute.GET, { apiKey: acme.apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      { id: first.id, email: first.email, role: "admin", expiresAt: expect.any(String) },
      { id: second.id, email: second.email, role: "viewer", expiresAt: expect.any(String) },
    ]);

    expect((await withdraw(acme.apiKey, theirs.id)).status).toBe(404);
    expect((await pending(globex.apiKey)).map((i) => i.id)).toEqual([theirs.id]);
    for (const id of [newId("inv"), "inv_nope", "x"]) expect((await withdraw(acme.apiKey, id)).status).toBe(404);

    const res = await withdraw(acme.apiKey, first.id);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect((await pending(acme.apiKey)).map((i) => i.id)).toEqual([second.id]);
    expect((await withdraw(acme.apiKey, first.id)).status).toBe(404);
    expect(await lookUpInvitation(first.token)).toEqual({ state: "withdrawn" });
  });
});

describe("accepting an invitation", () => {
  it("with a new account: the account joins with the invited role (and no organization of its own), the link is used up, member.joined recorded", async () => {
    const { id, email, token } = await invited(acme, "viewer");
    expect(await lookUpInvitation(token)).toMatchObject({ state: "pending", organizationName: "Acme", email, role: "viewer", accountExists: false });

    const joined = await acceptInvitationWithNewAccount({ token, password: PASSWORD, ip: "203.0.113.9" });
    expect(joined).toMatchObject({ organizationId: acme.organizationId, email });
    const rows = await getSql()`select organization_id, role from memberships where user_id = ${joined.userId}`;
    expect(rows).toEqual([{ organization_id: acme.organizationId, role: "viewer" }]);
    const [row] = await getSql()`select accepted_at, accepted_by_user_id from invitations where id = ${id}`;
    expect(row!.accepted_by_user_id).toBe(joined.userId);
    expect(row!.accepted_at).toBeInstanceOf(Date);
    const audit = await getSql()`select action, actor_type, actor_id, target_type, target_id, details, ip from audit_log where organization_id = ${acme.organizationId} and action = 'member.joined'`;
    expect(audit).toEqual([{ action: "member.joined", actor_type: "user", actor_id: joined.userId, target_type: "member", target_id: joined.userId, details: { role: "viewer", invitationId: id }, ip: "203.0.113.9" }]);

    expect(await lookUpInvitation(token)).toEqual({ state: "accepted" });
    await expect(acceptInvitationWithNewAccount({ token, password: PASSWORD })).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/already been used/) });
    expect((await pending(acme.apiKey)).map((i) => i.id)).toEqual([]);
  });

  it("signed in: an existing account joins and its session moves to the inviting organization", async () => {
    const globex = await createOrganizationFixture("Globex");
    const { id, token } = await invited(acme, "admin", globex.email);
    expect(await lookUpInvitation(token)).toMatchObject({ state: "pending", accountExists: true });
    const sessionId = await startSession({ userId: globex.userId, organizationId: globex.organizationId });

    expect(await acceptInvitation({ token, userId: globex.userId, sessionId })).toEqual({ organizationId: acme.organizationId });
    expect(await checkSession(sessionId)).toEqual({ userId: globex.userId, organizationId: acme.organizationId, role: "admin" });
    const roles = await getSql()`select organization_id, role from memberships where user_id = ${globex.userId} order by role`;
    expect(roles).toEqual([{ organization_id: acme.organizationId, role: "admin" }, { organization_id: globex.organizationId, role: "owner" }]);
    const [entry] = await getSql()`select details from audit_log where organization_id = ${acme.organizationId} and action = 'member.joined'`;
    expect(entry!.details).toEqual({ role: "admin", invitationId: id });
  });

  it("signed in as another address: refused, nothing joined", async () => {
    const globex = await createOrganizationFixture("Globex");
    const { token } = await invited(acme, "admin");
    const sessionId = await startSession({ userId: globex.userId, organizationId: globex.organizationId });
    await expect(acceptInvitation({ token, userId: globex.userId, sessionId })).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/This invitation is for invitee-/) });
    expect(await getSql()`select 1 from memberships where organization_id = ${acme.organizationId} and user_id = ${globex.userId}`).toEqual([]);
    expect(await checkSession(sessionId)).toMatchObject({ organizationId: globex.organizationId });
    expect((await lookUpInvitation(token)).state).toBe("pending");
  });

  it("refuses unknown, withdrawn, expired and used links, and creates no account for them", async () => {
    const withdrawn = await invited(acme);
    await withdraw(acme.apiKey, withdrawn.id);
    const expired = await invited(acme);
    await getSql()`update invitations set expires_at = now() - interval '1 second' where id = ${expired.id}`;
    const used = await invited(acme);
    await acceptInvitationWithNewAccount({ token: used.token, password: PASSWORD });

    const cases = [
      { token: randomBytes(32).toString("base64url"), state: "unknown", status: 404, message: /not valid/ },
      { token: "short", state: "unknown", status: 404, message: /not valid/ },
      { token: withdrawn.token, state: "withdrawn", status: 409, message: /withdrawn/ },
      { token: expired.token, state: "expired", status: 409, message: /expired/ },
      { token: used.token, state: "accepted", status: 409, message: /already been used/ },
    ];
    for (const { token, state, status, message } of cases) {
      expect(await lookUpInvitation(token), state).toEqual({ state });
      await expect(acceptInvitationWithNewAccount({ token, password: PASSWORD }), state).rejects.toMatchObject({ status, message: expect.stringMatching(message) });
      await expect(acceptInvitation({ token, userId: acme.userId, sessionId: "ses_none" }), state).rejects.toMatchObject({ status });
    }
    const accounts = await getSql()`select email from users where email in (${withdrawn.email}, ${expired.email})`;
    expect(accounts).toEqual([]);
  });

  it("an account removed from every organization still authenticates, with no organization (sign-in lets it in only with an invitation)", async () => {
    const { userId, email } = await acceptInvitationWithNewAccount({ token: (await invited(acme, "viewer")).token, password: PASSWORD });
    await getSql()`delete from memberships where user_id = ${userId}`;
    expect(await authenticateUser({ email, password: PASSWORD, address: null })).toMatchObject({ userId, organizationId: null });
    const { token } = await invited(acme, "admin", email);
    expect(await acceptInvitation({ token, userId })).toEqual({ organizationId: acme.organizationId });
    expect(await authenticateUser({ email, password: PASSWORD, address: null })).toMatchObject({ userId, organizationId: acme.organizationId });
  });

  it("a weak password is refused before anything is made, and the link still works", async () => {
    const { token } = await invited(acme);
    await expect(acceptInvitationWithNewAccount({ token, password: "short" })).rejects.toMatchObject({ status: 400 });
    expect((await lookUpInvitation(token)).state).toBe("pending");
  });

  it("two accepts of one link at once: one joins, the other is told the link was used", async () => {
    const { token } = await invited(acme);
    const outcomes = await Promise.allSettled([
      acceptInvitationWithNewAccount({ token, password: PASSWORD }),
      acceptInvitationWithNewAccount({ token, password: PASSWORD }),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    expect((outcomes.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult).reason).toMatchObject({ status: 409 });
  });
});
