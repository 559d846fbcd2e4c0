// An alertEmail outside the organization is mailed a confirmation link, and gets alerts only once confirmed;
// until then the owners get them. A real SMTP server on 127.0.0.1 receives every mail.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db";
import { checkAlerts } from "@/lib/alerts/check-alerts";
import { confirmAlertEmail } from "@/lib/alerts/confirm-alert-email";
import { updateEndpoint } from "@/lib/endpoints/update-endpoint";
import { useTestDatabase } from "@/test/db";
import { addMember, alertingEndpointFixture, insertDelivery, later, minutes, runDueJobs, useAlertMailbox } from "@/test/alert-fixtures";

useTestDatabase();
const { mailsTo, sweep } = useAlertMailbox({ APP_URL: "https://inbox.example.test" });

const tokenIn = (text: string) => /\/confirm-alert-email\/([A-Za-z0-9_-]{43})/.exec(text)?.[1];
const stranger = () => `stranger-${Math.random().toString(36).slice(2)}@elsewhere.test`;

async function openIncident(organizationId: string, endpointId: string, receivedMinutesAgo: number) {
  const now = new Date();
  await insertDelivery({ organizationId, endpointId, status: "pending", receivedAt: later(now, -minutes(receivedMinutesAgo)) });
  await sweep(now);
}

describe("an alertEmail outside the organization gets a confirmation link, and alerts only once it is confirmed", () => {
  it("mails the link, sends alerts to the owners meanwhile, and to the address after the Confirm button", async () => {
    const address = stranger();
    const { endpoint, email: owner, organizationId } = await alertingEndpointFixture({ thresholdSeconds: 60, alertEmail: address });
    await runDueJobs();

    const [confirmation, ...more] = mailsTo(address);
    expect(more).toHaveLength(0);
    expect(confirmation!.subject).toContain("Confirm alert mail");
    const token = tokenIn(confirmation!.text);
    expect(confirmation!.text).toContain(`https://inbox.example.test/confirm-alert-email/${token}`);

    await openIncident(organizationId, endpoint.id, 5);
    expect(mailsTo(address)).toHaveLength(1); // still only the confirmation
    expect(mailsTo(owner).map((mail) => mail.subject)).toEqual([expect.stringContaining(endpoint.name)]);

    // Opening the link (what a mail scanner does) confirms nothing; the button does.
    expect(await confirmAlertEmail({ token: token!, confirm: false })).toMatchObject({ outcome: "awaiting", email: address });
    expect(await confirmAlertEmail({ token: token!, confirm: false })).toMatchObject({ outcome: "awaiting" });
    expect(await confirmAlertEmail({ token: token!, confirm: true })).toMatchObject({ outcome: "confirmed", email: address, organizationName: "Acme" });
    expect(await confirmAlertEmail({ token: token!, confirm: true })).toMatchObject({ outcome: "already_confirmed" });

    // From now on the address gets the endpoint's mail: the recovery, then the next incident.
    await getDb().execute(sql`delete from deliveries where endpoint_id = ${endpoint.id}`);
    await checkAlerts({ input: { now: new Date() } });
    await runDueJobs();
    await openIncident(organizationId, endpoint.id, 10);
    expect(mailsTo(address).map((mail) => mail.subject)).toEqual([
      expect.stringContaining("Confirm"),
      expect.stringContaining("Recovered"),
      expect.stringContaining("waited 10 min"),
    ]);
  });
});

describe("does not turn the endpoint form into a way to mail strangers", () => {
  it("sends at most one confirmation an hour per address, and none to a member's address", async () => {
    const address = stranger();
    const { endpoint, ctx, organizationId } = await alertingEndpointFixture({ thresholdSeconds: 60, alertEmail: address });
    for (let i = 0; i < 5; i++) {
      await updateEndpoint({ ctx, input: { id: endpoint.id, changes: { alertEmail: null } } });
      await updateEndpoint({ ctx, input: { id: endpoint.id, changes: { alertEmail: address } } });
    }
    const member = await addMember(organizationId);
    await updateEndpoint({ ctx, input: { id: endpoint.id, changes: { alertEmail: member } } });
    await runDueJobs();
    expect(mailsTo(address)).toHaveLength(1);
    expect(mailsTo(member)).toHaveLength(0);

    // An hour later, saving it again sends a new link, and the old one stops working.
    const oldToken = tokenIn(mailsTo(address)[0]!.text)!;
    await getDb().execute(sql`update alert_email_confirmations set last_sent_at = now() - interval '61 minutes' where email = ${address}`);
    await updateEndpoint({ ctx, input: { id: endpoint.id, changes: { alertEmail: address } } });
    await runDueJobs();
    expect(mailsTo(address)).toHaveLength(2);
    expect(await confirmAlertEmail({ token: oldToken, confirm: true })).toEqual({ outcome: "invalid" });
    expect(await confirmAlertEmail({ token: tokenIn(mailsTo(address)[1]!.text)!, confirm: true })).toMatchObject({ outcome: "confirmed" });
  });
});

describe("refuses expired and made-up links", () => {
  it("answers expired after 7 days and invalid for a token it never gave out", async () => {
    const address = stranger();
    await alertingEndpointFixture({ thresholdSeconds: 60, alertEmail: address });
    await runDueJobs();
    const token = tokenIn(mailsTo(address)[0]!.text)!;
    await getDb().execute(sql`update alert_email_confirmations set token_expires_at = now() - interval '1 second' where email = ${address}`);
    expect(await confirmAlertEmail({ token, confirm: true })).toEqual({ outcome: "expired" });
    expect(await confirmAlertEmail({ token: "A".repeat(43), confirm: true })).toEqual({ outcome: "invalid" });
    expect(await confirmAlertEmail({ token: "../../etc", confirm: false })).toEqual({ outcome: "invalid" });
  });
});
