// #43: each destination has its own alert age. A destination with `alertPendingAgeSeconds` has pending-age incidents
// of its own, on its deliveries alone; its endpoint's threshold covers the others, and no longer it. The sweep is
// driven with `now`; mail goes through graphile-worker to a real SMTP server on 127.0.0.1.
import { describe, expect, it } from "vitest";
import * as destinationRoute from "@/app/api/v1/endpoints/[id]/destinations/[destinationId]/route";
import { getSql } from "@/db";
import { createDestination } from "@/lib/destinations/create-destination";
import { useTestDatabase } from "@/test/db";
import { alertingEndpointFixture, incidentsOf, insertDelivery, later, minutes, useAlertMailbox } from "@/test/alert-fixtures";
import { callRoute } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
const { mailsTo, sweep } = useAlertMailbox({ MAIL_FROM: "Inbox Alerts <alerts@inbox.test>" });

describe("a destination's own alert age", () => {
  it("opens and resolves its own incident on its deliveries alone, while its endpoint's threshold covers the others", async () => {
    const { endpoint, alertEmail, ctx, apiKey } = await alertingEndpointFixture({ thresholdSeconds: 3600, name: "Orders" });
    const billing = await createDestination({ ctx, input: { endpointId: endpoint.id, body: { name: "Billing", url: "http://127.0.0.1:9/b" } } });
    const set = await callRoute(destinationRoute.PATCH, { method: "PATCH", apiKey, params: { id: endpoint.id, destinationId: billing.id }, body: { alertPendingAgeSeconds: 120 } });
    expect(set.status).toBe(200);
    expect(set.body.alertPendingAgeSeconds).toBe(120);
    const bad = await callRoute(destinationRoute.PATCH, { method: "PATCH", apiKey, params: { id: endpoint.id, destinationId: billing.id }, body: { alertPendingAgeSeconds: 0 } });
    expect(bad.status).toBe(400);

    // Archive's own day covers its deliveries instead of the endpoint's hour.
    const archive = await createDestination({ ctx, input: { endpointId: endpoint.id, body: { name: "Archive", url: "http://127.0.0.1:9/a", alertPendingAgeSeconds: 86_400 } } });
    const t0 = new Date();
    const of = { organizationId: ctx.organizationId, endpointId: endpoint.id };
    await insertDelivery({ ...of, destinationId: archive.id, status: "pending", receivedAt: later(t0, -minutes(120)) });
    // Billing waits 10 min (over its 2 min); the default destination 30 min (under the endpoint's hour); Archive
    // 2 h (over the endpoint's hour, under its own day).
    const late = await insertDelivery({ ...of, destinationId: billing.id, status: "pending", receivedAt: later(t0, -minutes(10)), lastError: "HTTP 503" });
    await insertDelivery({ ...of, status: "pending", receivedAt: later(t0, -minutes(30)) });
    await sweep(t0);
    let incidents = await incidentsOf(endpoint.id, "pending_age");
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ destinationId: billing.id, thresholdSeconds: 120, peakAgeSeconds: 600, resolvedAt: null });
    expect(mailsTo(alertEmail)).toHaveLength(1);

    // A backlog of the default destination's past the endpoint's hour opens the endpoint's own incident; billing's
    // 10 minutes are not the endpoint's business any more (its incident would have opened at once otherwise).
    await sweep(later(t0, minutes(31)));
    incidents = await incidentsOf(endpoint.id, "pending_age");
    expect(incidents.map((incident) => incident.destinationId ?? "endpoint").sort()).toEqual([billing.id, "endpoint"].sort());
    const endpointIncident = incidents.find((incident) => incident.destinationId === null)!;
    expect(endpointIncident.peakAgeSeconds).toBe(61 * 60);

    // Billing's delivery delivered: its incident resolves, once; the endpoint's stays open.
    await getSql()`update deliveries set status = 'delivered', delivered_at = now() where id = ${late}`;
    await sweep(later(t0, minutes(32)));
    await sweep(later(t0, minutes(33)));
    incidents = await incidentsOf(endpoint.id, "pending_age");
    expect(incidents.find((incident) => incident.destinationId === billing.id)!.resolvedAt).not.toBeNull();
    expect(incidents.find((incident) => incident.destinationId === null)!.resolvedAt).toBeNull();
    const subjects = mailsTo(alertEmail).map((mail) => mail.subject);
    expect(subjects.filter((subject) => subject.startsWith("[Webhook Inbox] Recovered"))).toHaveLength(1);
  });
});
