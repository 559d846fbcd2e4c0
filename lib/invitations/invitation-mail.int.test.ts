// From mail to membership through the real mail path: POST /invitations queues the mail, graphile-worker
// runs the send-mail job against a real SMTP server on 127.0.0.1 (SMTP_URL), the link is read out of the
// mail received there, and following it makes the invitee a member with the invited role.
import { afterEach, describe, expect, it } from "vitest";
import * as invitationsRoute from "@/app/api/v1/invitations/route";
import * as membersRoute from "@/app/api/v1/members/route";
import { getSql } from "@/db";
import { runDueJobs } from "@/test/alert-fixtures";
import { startTestSmtpServer, type TestSmtpServer } from "@/test/smtp-server";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { acceptInvitationWithNewAccount } from "./accept-invitation-with-new-account";
import { hashInvitationToken } from "./invitation-token";
import { lookUpInvitation } from "./look-up-invitation";

useTestDatabase();

let smtp: TestSmtpServer | undefined;
afterEach(async () => {
  delete process.env.SMTP_URL;
  await smtp?.close();
  smtp = undefined;
});

describe("an invitation mailed over SMTP is accepted from the link in the mail", () => {
  it("delivers one mail with the link, and the link signs the invitee up into the organization as invited", async () => {
    smtp = await startTestSmtpServer();
    process.env.SMTP_URL = smtp.url;
    const acme = await createOrganizationFixture("Acme Mail");
    const email = `mailed-${Date.now()}@example.test`;

    const created = await callRoute(invitationsRoute.POST, { method: "POST", apiKey: acme.apiKey, body: { email, role: "admin" } });
    expect(created.status).toBe(201);
    expect(smtp.received).toHaveLength(0); // queued with the invitation, sent by the worker
    await runDueJobs();

    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0]!;
    expect(mail.to).toEqual([email]);
    expect(mail.subject).toBe("[Webhook Inbox] You are invited to join an organization");
    const link = /http:\/\/inbox\.test\/invite\/[A-Za-z0-9_-]{43}/.exec(mail.text)?.[0];
    expect(link, mail.text).toBeDefined();
    expect(mail.html).toContain(`href="${link}"`);
    const token = link!.split("/").at(-1)!;
    const [row] = await getSql()`select token_hash from invitations where id = ${created.body.id}`;
    expect(row!.token_hash).toBe(hashInvitationToken(token));
    const [sent] = await getSql()`select status, secret_link, text_body from mails where organization_id = ${acme.organizationId}`;
    expect(sent!.status).toBe("sent");
    // Sent: the link is let go of; the stored body never held it.
    expect(sent!.secret_link).toBeNull();
    expect(sent!.text_body).not.toContain(token);

    expect(await lookUpInvitation(token)).toMatchObject({ state: "pending", organizationName: "Acme Mail", email, role: "admin" });
    const { userId } = await acceptInvitationWithNewAccount({ token, password: "a-long-invitee-password" });
    const members = await callRoute(membersRoute.GET, { apiKey: acme.apiKey });
    expect(members.body.data).toContainEqual({ userId, email, role: "admin", joinedAt: expect.any(String) });
    expect(await lookUpInvitation(token)).toEqual({ state: "accepted" });
  });
});
