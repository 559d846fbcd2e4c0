// Pending-age alerts end to end: the sweep (driven with `now`), the send-mail jobs run by graphile-worker
// with the worker's own task list, and a real SMTP server on 127.0.0.1.
import { describe, expect, it } from "vitest";
import { listOpenIncidents } from "@/lib/alerts/list-open-incidents";
import { getSql } from "@/db";
import { replayDeliveries } from "@/lib/delivery/replay-deliveries";
import { replayDelivery } from "@/lib/delivery/replay-delivery";
import { getEndpointStats } from "@/lib/endpoints/get-endpoint-stats";
import { getOverview } from "@/lib/endpoints/get-overview";
import { readDeliveryMetrics } from "@/lib/metrics/read-delivery-metrics";
import { updateEndpoint } from "@/lib/endpoints/update-endpoint";
import { useTestDatabase } from "@/test/db";
import { alertingEndpointFixture, incidentsOf, insertDelivery, later, minutes, setDeliveryStatus, useAlertMailbox } from "@/test/alert-fixtures";

useTestDatabase();
const { mailsTo, sweep } = useAlertMailbox({ MAIL_FROM: "Inbox Alerts <alerts@inbox.test>" });

describe("opens one incident and sends exactly one mail when the oldest pending delivery passes the threshold", () => {
  it("names the endpoint, the age, the last error and links to its waiting deliveries; later checks send nothing", async () => {
    const { endpoint, alertEmail, ctx } = await alertingEndpointFixture({ thresholdSeconds: 300, name: "Stripe production" });
    const t0 = new Date();
    await insertDelivery({ ...ids(ctx, endpoint), status: "pending", receivedAt: later(t0, -minutes(10)), lastError: "connect ECONNREFUSED 127.0.0.1:9" });
    await insertDelivery({ ...ids(ctx, endpoint), status: "delivering", receivedAt: later(t0, -minutes(2)) });

    await sweep(t0);
    const [mail, ...others] = mailsTo(alertEmail);
    expect(others).toHaveLength(0);
    expect(mail!.from).toBe("alerts@inbox.test");
    expect(mail!.subject).toContain("Stripe production");
    expect(mail!.subject).toContain("10 min");
    expect(mail!.text).toContain("Waiting (pending or delivering): 2");
    expect(mail!.text).toContain("Last error: connect ECONNREFUSED 127.0.0.1:9");
    expect(mail!.text).toContain(`http://inbox.test/deliveries?endpointId=${endpoint.id}&status=pending`);
    expect(mail!.html).toContain(`href="http://inbox.test/deliveries?endpointId=${endpoint.id}&amp;status=pending"`);

    const open = await listOpenIncidents({ ctx });
    expect(open).toMatchObject([{ kind: "pending_age", endpointId: endpoint.id, endpointName: "Stripe production", peakAgeSeconds: 600, thresholdSeconds: 300 }]);

    for (const offset of [minutes(1), minutes(2), minutes(5 * 60)]) await sweep(later(t0, offset));
    expect(mailsTo(alertEmail)).toHaveLength(1);
    const [incident] = await incidentsOf(endpoint.id, "pending_age");
    expect(incident).toMatchObject({ resolvedAt: null, notificationCount: 1, peakAgeSeconds: 600 + 5 * 3600 });
  });
});

describe("sends one recovery mail when the backlog drains below the threshold", () => {
  it("resolves the incident, mails once, and stays quiet afterwards", async () => {
    const { endpoint, alertEmail, ctx } = await alertingEndpointFixture({ thresholdSeconds: 60 });
    const t0 = new Date();
    await insertDelivery({ ...ids(ctx, endpoint), status: "pending", receivedAt: later(t0, -minutes(3)), lastError: "HTTP 503" });
    await sweep(t0);
    await sweep(later(t0, minutes(1)));
    expect(mailsTo(alertEmail)).toHaveLength(1);

    await setDeliveryStatus(endpoint.id, "delivered");
    await sweep(later(t0, minutes(2)));
    await sweep(later(t0, minutes(3)));
    const mails = mailsTo(alertEmail);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.subject).toMatch(/^\[Webhook Inbox\] Recovered: .* is below its 1 min threshold$/);
    expect(mails[1]!.text).toContain("Oldest waiting now: nothing is waiting");
    expect(mails[1]!.text).toContain("Worst age seen: 4 min");
    const [incident] = await incidentsOf(endpoint.id, "pending_age");
    expect(incident!.resolvedAt).toEqual(later(t0, minutes(2)));
    expect(await listOpenIncidents({ ctx })).toEqual([]);
  });

  it("opens a new incident, with a new mail, when deliveries wait too long again", async () => {
    const { endpoint, alertEmail, ctx } = await alertingEndpointFixture({ thresholdSeconds: 60 });
    const t0 = new Date();
    await insertDelivery({ ...ids(ctx, endpoint), status: "pending", receivedAt: later(t0, -minutes(2)) });
    await sweep(t0);
    await setDeliveryStatus(endpoint.id, "delivered");
    await sweep(later(t0, minutes(1)));
    await insertDelivery({ ...ids(ctx, endpoint), status: "pending", receivedAt: later(t0, minutes(1)) });
    await sweep(later(t0, minutes(3)));
    expect(mailsTo(alertEmail).map((mail) => mail.subject.startsWith("[Webhook Inbox] Recovered"))).toEqual([false, true, false]);
    expect((await incidentsOf(endpoint.id, "pending_age")).map((incident) => incident.resolvedAt === null)).toEqual([false, true]);
  });
});

describe("reminds once after six hours while the incident stays open", () => {
  it("sends a second mail at six hours and not before", async () => {
    const { endpoint, alertEmail, ctx } = await alertingEndpointFixture({ thresholdSeconds: 300 });
    const t0 = new Date();
    await insertDelivery({ ...ids(ctx, endpoint), status: "pending", receivedAt: later(t0, -minutes(6)) });
    await sweep(t0);
    await sweep(later(t0, minutes(6 * 60 - 1)));
    expect(mailsTo(alertEmail)).toHaveLength(1);
    await sweep(later(t0, minutes(6 * 60)));
    await sweep(later(t0, minutes(6 * 60 + 1)));
    const mails = mailsTo(alertEmail);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.subject).toContain("Still waiting: ");
  });
});

describe("stays quiet while every open delivery is younger than the threshold", () => {
  it("opens nothing and sends nothing", async () => {
    const { endpoint, alertEmail, ctx } = await alertingEndpointFixture({ thresholdSeconds: 600 });
    const t0 = new Date();
    await insertDelivery({ ...ids(ctx, endpoint), status: "pending", receivedAt: later(t0, -minutes(9)) });
    await insertDelivery({ ...ids(ctx, endpoint), status: "dead", receivedAt: later(t0, -minutes(90)), updatedAt: later(t0, -minutes(80)) });
    await insertDelivery({ ...ids(ctx, endpoint), status: "delivered", receivedAt: later(t0, -minutes(60)) });
    await sweep(t0);
    expect(await incidentsOf(endpoint.id, "pending_age")).toEqual([]);
    expect(mailsTo(alertEmail)).toEqual([]);
  });
});

describe("mails the organization's owners when the endpoint has no alertEmail", () => {
  it("sends the alert to the owner's address", async () => {
    const { endpoint, email, ctx } = await alertingEndpointFixture({ thresholdSeconds: 60, alertEmail: null });
    const t0 = new Date();
    await insertDelivery({ ...ids(ctx, endpoint), status: "pending", receivedAt: later(t0, -minutes(5)) });
    await sweep(t0);
    expect(mailsTo(email)).toHaveLength(1);
  });
});

describe("closes an open incident without mail when alerting is switched off", () => {
  it("resolves it quietly", async () => {
    const { endpoint, alertEmail, ctx } = await alertingEndpointFixture({ thresholdSeconds: 60 });
    const t0 = new Date();
    await insertDelivery({ ...ids(ctx, endpoint), status: "pending", receivedAt: later(t0, -minutes(5)) });
    await sweep(t0);
    await updateEndpoint({ ctx, input: { id: endpoint.id, changes: { alertPendingAgeSeconds: null, alertEmail: null } } });
    await sweep(later(t0, minutes(1)));
    expect(mailsTo(alertEmail)).toHaveLength(1);
    const [incident] = await incidentsOf(endpoint.id, "pending_age");
    expect(incident!.resolvedAt).toEqual(later(t0, minutes(1)));
  });
});

describe("shows an organization only its own open incidents", () => {
  it("lists nothing of another organization's incident", async () => {
    const first = await alertingEndpointFixture({ thresholdSeconds: 60 });
    const second = await alertingEndpointFixture({ thresholdSeconds: 60 });
    const t0 = new Date();
    await insertDelivery({ ...ids(first.ctx, first.endpoint), status: "pending", receivedAt: later(t0, -minutes(5)) });
    await sweep(t0);
    expect(await listOpenIncidents({ ctx: first.ctx })).toHaveLength(1);
    expect(await listOpenIncidents({ ctx: second.ctx })).toEqual([]);
  });
});

describe("counts a delivery's pending age from its latest replay, not its first receipt", () => {
  it("does not fire for a delivery received 2 h ago and replayed now; fires for one not replayed", async () => {
    const replayed = await alertingEndpointFixture({ thresholdSeconds: 1800, name: "Replayed" });
    const waiting = await alertingEndpointFixture({ thresholdSeconds: 1800, name: "Waiting" });
    const t0 = new Date();
    const one = await insertDelivery({ ...ids(replayed.ctx, replayed.endpoint), status: "dead", receivedAt: later(t0, -minutes(120)), lastError: "HTTP 500" });
    await insertDelivery({ ...ids(replayed.ctx, replayed.endpoint), status: "delivered", receivedAt: later(t0, -minutes(110)) });
    await insertDelivery({ ...ids(waiting.ctx, waiting.endpoint), status: "pending", receivedAt: later(t0, -minutes(120)) });
    await replayDelivery({ ctx: replayed.ctx, input: { id: one } });
    expect(await replayDeliveries({ ctx: replayed.ctx, input: { filter: { status: "delivered" } } })).toEqual({ count: 1 });

    // The replayed ones wait again, since now: under the threshold everywhere the age is shown.
    const [{ status: oneStatus }] = await getSql()<{ status: string }[]>`select status from deliveries where id = ${one}`;
    expect(oneStatus).toBe("pending");
    const stats = await getEndpointStats({ ctx: replayed.ctx, input: { id: replayed.endpoint.id } });
    expect(stats).toMatchObject({ pending: 2 });
    expect(stats.oldestPendingAgeSeconds).toBeLessThan(600);
    const [overview] = (await getOverview({ ctx: replayed.ctx })).endpoints;
    expect(overview).toMatchObject({ pending: 2, overThreshold: false });
    const metrics = (await readDeliveryMetrics()).endpoints.find((m) => m.endpointId === replayed.endpoint.id)!;
    expect(metrics.oldestPendingAgeSeconds).toBeLessThan(600);
    expect((await readDeliveryMetrics()).endpoints.find((m) => m.endpointId === waiting.endpoint.id)!.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(7200);

    await sweep(later(t0, minutes(1)));
    expect(await incidentsOf(replayed.endpoint.id, "pending_age")).toEqual([]);
    expect(mailsTo(replayed.alertEmail)).toHaveLength(0);
    expect(await incidentsOf(waiting.endpoint.id, "pending_age")).toHaveLength(1);
    expect(mailsTo(waiting.alertEmail)).toHaveLength(1);
    expect(mailsTo(waiting.alertEmail)[0]!.subject).toContain("2 h");
  });
});

function ids(ctx: { organizationId: string }, endpoint: { id: string }) {
  return { organizationId: ctx.organizationId, endpointId: endpoint.id };
}
