// Incidents told on every kind of channel, end to end: real receivers on 127.0.0.1 acting as Slack, a webhook
// consumer and PagerDuty's Events API, a real SMTP server for an email channel, and the notify jobs run by
// graphile-worker in this process. Checks are driven with `now` ahead instead of waiting for the clock.
import type { Runner } from "graphile-worker";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { taskList } from "@/jobs";
import { channelApi } from "@/test/alert-channel-api";
import { addMember, alertingEndpointFixture, insertDelivery, later, minutes, setDeliveryStatus } from "@/test/alert-fixtures";
import { useTestDatabase } from "@/test/db";
import { startDestination, startTestWorker, until, type Destination } from "@/test/delivery-fixtures";
import { startTestSmtpServer, type TestSmtpServer } from "@/test/smtp-server";
import * as endpointItem from "@/app/api/v1/endpoints/[id]/route";
import { callRoute } from "@/test/fixtures";
import { checkAlerts } from "./check-alerts";

useTestDatabase();
let smtp: TestSmtpServer;
let worker: Runner;
let slack: Destination;
let flaky: Destination;
let hook: Destination;
let pagerDuty: Destination;
let otherHook: Destination;

beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  smtp = await startTestSmtpServer();
  process.env.SMTP_URL = smtp.url;
  slack = await startDestination();
  hook = await startDestination();
  otherHook = await startDestination();
  pagerDuty = await startDestination((_request, response) => {
    response.statusCode = 202;
    response.end('{"status":"success"}');
  });
  // Answers 500 once, then takes them.
  flaky = await startDestination((_request, response, index) => {
    response.statusCode = index === 0 ? 500 : 200;
    response.end(index === 0 ? "slack is having a day" : "ok");
  });
  process.env.PAGERDUTY_EVENTS_URL = `${pagerDuty.url.replace(/\/hook$/, "")}/v2/enqueue`;
  worker = await startTestWorker(taskList, { concurrency: 4 });
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all([slack, flaky, hook, pagerDuty, otherHook].map((receiver) => receiver?.close()));
  await smtp?.close();
  delete process.env.SMTP_URL;
  delete process.env.PAGERDUTY_EVENTS_URL;
});

const json = (receiver: Destination) => receiver.requests.map((request) => JSON.parse(request.body.toString("utf8")));
const notificationsOf = (incidentId: string) => getSql()`
  select channel_name, event, status, attempts, last_error, sent_at from alert_notifications where incident_id = ${incidentId} order by channel_name, event`;

describe("an incident on every channel", () => {
  it("tells each channel once when it opens and once when it recovers; a failing channel is retried and holds up nobody", { timeout: 60_000 }, async () => {
    const { organizationId, apiKey, endpoint } = await alertingEndpointFixture({ thresholdSeconds: 60, name: "Payments", alertEmail: null });
    const oncall = await addMember(organizationId);
    const made = {
      slack: await channelApi.create(apiKey, { name: "A slack", type: "slack", target: slack.url }),
      flaky: await channelApi.create(apiKey, { name: "B flaky slack", type: "slack", target: flaky.url }),
      hook: await channelApi.create(apiKey, { name: "C hook", type: "webhook", target: hook.url }),
      pager: await channelApi.create(apiKey, { name: "D pager", type: "pagerduty", target: "R0utingKeyR0utingKeyR0utingKey42" }),
      mail: await channelApi.create(apiKey, { name: "E mail", type: "email", target: oncall }),
    };
    const secret = made.hook.body.secret as string;
    await getSql()`update endpoints set alert_channel_ids = ${Object.values(made).map((m) => m.body.id)} where id = ${endpoint.id}`;

    // Another organization's incident at the same time, on its own webhook channel.
    const other = await alertingEndpointFixture({ thresholdSeconds: 60, name: "Theirs", alertEmail: null });
    const theirs = await channelApi.create(other.apiKey, { name: "Their hook", type: "webhook", target: otherHook.url });
    await getSql()`update endpoints set alert_channel_ids = ${[theirs.body.id]} where id = ${other.endpoint.id}`;

    const start = new Date();
    await insertDelivery({ organizationId, endpointId: endpoint.id, status: "pending", receivedAt: start, lastError: "HTTP 503" });
    await insertDelivery({ organizationId: other.organizationId, endpointId: other.endpoint.id, status: "pending", receivedAt: start });
    await checkAlerts({ input: { now: later(start, minutes(2)) } });
    const [incident] = await getSql()`select id from incidents where endpoint_id = ${endpoint.id} and kind = 'pending_age'`;

    // Everyone else is told while the flaky channel still waits for its retry.
    await until("the other channels", async () => {
      const rows = await notificationsOf(incident!.id);
      return rows.filter((r) => r.channel_name !== "B flaky slack" && r.channel_name !== "E mail").every((r) => r.status === "sent") && otherHook.requests.length === 1 && smtp.received.length === 1;
    });
    const flakyRow = (await notificationsOf(incident!.id)).find((r) => r.channel_name === "B flaky slack")!;
    expect(flakyRow).toMatchObject({ status: "retrying", attempts: 1 });
    expect(flakyRow.last_error).toContain("HTTP 500");
    await until("the flaky channel's retry", async () => (await notificationsOf(incident!.id)).every((r) => r.channel_name === "E mail" || r.status === "sent"));
    expect(flaky.requests).toHaveLength(2);

    // Slack: a Block Kit message naming what, where, since when and how many, with a dashboard link.
    const [message] = json(slack);
    expect(message.text).toContain("Payments");
    const blocks = JSON.stringify(message.blocks);
    expect(message.blocks[0].type).toBe("header");
    expect(blocks).toContain("*Endpoint*\\nPayments");
    expect(blocks).toContain("Waiting (pending or delivering)");
    expect(blocks).toContain(`http://inbox.test/deliveries?endpointId=${endpoint.id}`);

    // The webhook: a Standard Webhooks–signed incident.opened event.
    const [request] = hook.requests;
    const event = new Webhook(secret).verify(request!.body.toString("utf8"), request!.headers as Record<string, string>) as Record<string, any>;
    expect(event).toMatchObject({ type: "incident.opened", data: { incident: { id: incident!.id, kind: "pending_age", status: "open", endpoint: { id: endpoint.id, name: "Payments" } } } });
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(request!.body.toString("utf8"), request!.headers as Record<string, string>)).toThrow();

    // PagerDuty: a trigger keyed by the incident.
    expect(pagerDuty.requests[0]!.url).toBe("/v2/enqueue");
    expect(json(pagerDuty)[0]).toMatchObject({ routing_key: "R0utingKeyR0utingKeyR0utingKey42", event_action: "trigger", dedup_key: incident!.id, payload: { severity: "error" } });
    expect(smtp.received[0]!.to).toEqual([oncall]);

    // Still open at the next check: nobody hears anything new.
    await checkAlerts({ input: { now: later(start, minutes(3)) } });
    await setDeliveryStatus(endpoint.id, "delivered");
    await checkAlerts({ input: { now: later(start, minutes(4)) } });
    await until("the recovery everywhere", async () => (await notificationsOf(incident!.id)).filter((r) => r.event === "resolved" && (r.status === "sent" || r.channel_name === "E mail")).length === 5 && smtp.received.length === 2);
    await checkAlerts({ input: { now: later(start, minutes(5)) } });
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect([slack, hook, pagerDuty].map((receiver) => receiver.requests.length)).toEqual([2, 2, 2]);
    expect(flaky.requests).toHaveLength(3);
    expect(json(pagerDuty)[1]).toEqual({ routing_key: "R0utingKeyR0utingKeyR0utingKey42", event_action: "resolve", dedup_key: incident!.id });
    const resolved = new Webhook(secret).verify(hook.requests[1]!.body.toString("utf8"), hook.requests[1]!.headers as Record<string, string>) as Record<string, any>;
    expect(resolved).toMatchObject({ type: "incident.resolved", data: { incident: { id: incident!.id, status: "resolved" } } });
    expect(json(slack)[1].text).toContain("Recovered");
    expect(smtp.received.map((mail) => mail.subject.startsWith("[Webhook Inbox] Recovered"))).toEqual([false, true]);
    // Named channels replace the owners' default mail.
    expect(smtp.received.every((mail) => mail.to.join() === oncall)).toBe(true);
    expect(otherHook.requests).toHaveLength(1);
  });
});

describe("deleting an endpoint with an open incident", () => {
  it("resolves it on its channels first, so PagerDuty is not left open", { timeout: 30_000 }, async () => {
    const { organizationId, apiKey, endpoint } = await alertingEndpointFixture({ thresholdSeconds: 60, alertEmail: null });
    const pager = await channelApi.create(apiKey, { name: "Pager", type: "pagerduty", target: "DeletedKeyDeletedKeyDeletedKey77" });
    await getSql()`update endpoints set alert_channel_ids = ${[pager.body.id]} where id = ${endpoint.id}`;
    const start = new Date();
    await insertDelivery({ organizationId, endpointId: endpoint.id, status: "pending", receivedAt: start });
    await checkAlerts({ input: { now: later(start, minutes(2)) } });
    const [incident] = await getSql()`select id from incidents where endpoint_id = ${endpoint.id}`;
    const ours = () => json(pagerDuty).filter((event) => event.routing_key === "DeletedKeyDeletedKeyDeletedKey77");
    await until("the trigger", () => ours().length === 1);

    const gone = await callRoute(endpointItem.DELETE, { method: "DELETE", apiKey, params: { id: endpoint.id } });
    expect(gone.status).toBe(204);
    await until("the resolve", () => ours().length === 2);
    expect(ours()).toMatchObject([{ event_action: "trigger", dedup_key: incident!.id }, { event_action: "resolve", dedup_key: incident!.id }]);
    const rows = await getSql()`select event, status, incident_id from alert_notifications where channel_id = ${pager.body.id} order by created_at`;
    await until("both recorded sent", async () => (await getSql()`select count(*)::int as n from alert_notifications where channel_id = ${pager.body.id} and status = 'sent'`)[0]!.n === 2);
    expect(rows.map((row) => [row.event, row.incident_id])).toEqual([["opened", null], ["resolved", null]]);
  });
});

describe("a channel's test", () => {
  it("sends a signed test event through the same path, recorded", { timeout: 30_000 }, async () => {
    const { apiKey } = await alertingEndpointFixture({ alertEmail: null });
    const receiver = await startDestination();
    try {
      const made = await channelApi.create(apiKey, { name: "Hook", type: "webhook", target: receiver.url });
      const sent = await channelApi.test(apiKey, made.body.id);
      expect(sent.status).toBe(202);
      await until("the test event", async () => (await getSql()`select status from alert_notifications where id = ${sent.body.id}`)[0]?.status === "sent");
      const event = new Webhook(made.body.secret).verify(receiver.requests[0]!.body.toString("utf8"), receiver.requests[0]!.headers as Record<string, string>);
      expect(event).toMatchObject({ id: sent.body.id, type: "test", data: { incident: null } });
    } finally {
      await receiver.close();
    }
  });
});
