// The retention sweep's other records: finished mails, resolved incidents with their notifications, refused
// requests, each past its organization's retention removed, the rest kept.
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { newId } from "@/lib/ids";
import { useTestDatabase } from "@/test/db";
import { organization, unbounded } from "@/test/retention-fixtures";
import { applyRetention } from "./apply-retention";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

describe("mails, incidents and refused requests", () => {
  let org: Awaited<ReturnType<typeof organization>>;
  let other: Awaited<ReturnType<typeof organization>>;
  beforeAll(async () => {
    org = await organization(7);
    other = await organization(30);
  });

  const mail = async (organizationId: string, status: string, age: string) => {
    const id = newId("mail");
    await getSql()`
      insert into mails (id, organization_id, recipients, subject, text_body, html_body, status, created_at, updated_at)
      values (${id}, ${organizationId}, ${["a@example.test"]}, 's', 't', 'h', ${status}, now() - ${age}::interval, now() - ${age}::interval)`;
    return id;
  };
  const incident = async (o: { organizationId: string; endpointId: string }, opened: string, resolved: string | null) => {
    const id = newId("inc");
    await getSql()`
      insert into incidents (id, organization_id, endpoint_id, kind, opened_at, last_seen_at, resolved_at)
      values (${id}, ${o.organizationId}, ${o.endpointId}, 'dead_deliveries', now() - ${opened}::interval, now() - ${opened}::interval,
        now() - ${resolved}::interval)`;
    return id;
  };
  const refusal = async (o: { organizationId: string; endpointId: string }, age: string) => {
    const [row] = await getSql()<{ id: string }[]>`
      insert into rejected_requests (organization_id, endpoint_id, at, reason, message, source_ip, header_names)
      values (${o.organizationId}, ${o.endpointId}, now() - ${age}::interval, 'missing_signature', 'm', '203.0.113.1', ${["content-type"]})
      returning id::text`;
    return row!.id;
  };
  const notification = async (organizationId: string, status: string, age: string, incidentId: string | null = null) => {
    const id = newId("ntf");
    await getSql()`
      insert into alert_notifications (id, organization_id, incident_id, channel_type, channel_name, event, message, status, created_at)
      values (${id}, ${organizationId}, ${incidentId}, 'webhook', 'Hook', 'test', '{}'::jsonb, ${status}, now() - ${age}::interval)`;
    return id;
  };
  const exists = async (table: "mails" | "incidents" | "rejected_requests" | "alert_notifications", ids: string[]) =>
    (await getSql()<{ id: string }[]>`select id::text from ${getSql()(table)} where id::text = any(${ids}::text[])`).map((r) => r.id).sort();

  it("removes what is finished and past the organization's retention, and keeps the rest", async () => {
    const goneMails = [await mail(org.organizationId, "sent", "8 days"), await mail(org.organizationId, "logged", "30 days"), await mail(org.organizationId, "failed", "9 days")];
    const keptMails = [
      await mail(org.organizationId, "queued", "30 days"), // its send-mail job still needs it
      await mail(org.organizationId, "retrying", "30 days"),
      await mail(org.organizationId, "sent", "6 days"),
      await mail(other.organizationId, "sent", "8 days"), // kept 30 days there
    ];
    const goneIncidents = [await incident(org, "12 days", "10 days")];
    const keptIncidents = [await incident(org, "40 days", null), await incident(org, "12 days", "2 days"), await incident(other, "12 days", "10 days")];
    const goneRefusals = [await refusal(org, "8 days"), await refusal(org, "100 days")];
    const keptRefusals = [await refusal(org, "6 days"), await refusal(other, "8 days")];

    // A channel's test, or a resolution told as its endpoint went: no incident to take them along.
    const goneNotifications = [await notification(org.organizationId, "sent", "8 days"), await notification(org.organizationId, "failed", "9 days")];
    const keptNotifications = [
      await notification(org.organizationId, "retrying", "30 days"), // its job still needs it
      await notification(org.organizationId, "sent", "6 days"),
      await notification(org.organizationId, "sent", "30 days", keptIncidents[0]), // goes with its incident
      await notification(other.organizationId, "sent", "8 days"),
    ];

    const run = await applyRetention({ settings: unbounded });

    expect(run.deleted).toMatchObject({ mails: 3, incidents: 1, alertNotifications: 2, refusedRequests: 2 });
    expect(await exists("alert_notifications", [...goneNotifications, ...keptNotifications])).toEqual([...keptNotifications].sort());
    expect(await exists("mails", [...goneMails, ...keptMails])).toEqual([...keptMails].sort());
    expect(await exists("incidents", [...goneIncidents, ...keptIncidents])).toEqual([...keptIncidents].sort());
    expect(await exists("rejected_requests", [...goneRefusals, ...keptRefusals])).toEqual([...keptRefusals].sort());
  });
});
