// Dead-delivery alerts: same incident model, at most one mail per endpoint per hour, counted from a watermark.
import { describe, expect, it } from "vitest";
import { buryDelivery } from "@/lib/delivery/bury-delivery";
import { useTestDatabase } from "@/test/db";
import { alertingEndpointFixture, incidentsOf, insertDelivery, later, minutes, useAlertMailbox } from "@/test/alert-fixtures";

useTestDatabase();
const { mailsTo, sweep } = useAlertMailbox();

describe("mails how many deliveries went dead and the last error, at most once per endpoint per hour", () => {
  it("opens one incident, holds later deaths for the hour, then names them in one more mail", async () => {
    const { endpoint, alertEmail, organizationId } = await alertingEndpointFixture({ thresholdSeconds: 3600, name: "Orders" });
    const dead = (at: Date, lastError: string) =>
      insertDelivery({ organizationId, endpointId: endpoint.id, status: "dead", receivedAt: later(at, -minutes(100)), updatedAt: at, lastError });
    const t0 = new Date();
    await dead(later(t0, -minutes(3)), "HTTP 500: boom");
    await dead(later(t0, -minutes(2)), "HTTP 410: gone");

    await sweep(t0);
    let mails = mailsTo(alertEmail);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe("[Webhook Inbox] Orders: 2 deliveries went dead");
    expect(mails[0]!.text).toContain("Last error: HTTP 410: gone");
    expect(mails[0]!.text).toContain(`http://inbox.test/deliveries?endpointId=${endpoint.id}&status=dead`);

    await dead(later(t0, minutes(5)), "HTTP 502: bad gateway");
    await dead(later(t0, minutes(6)), "connect ETIMEDOUT");
    await dead(later(t0, minutes(7)), "connect ETIMEDOUT");
    await sweep(later(t0, minutes(10)));
    await sweep(later(t0, minutes(59)));
    expect(mailsTo(alertEmail)).toHaveLength(1);
    expect((await incidentsOf(endpoint.id, "dead_deliveries"))[0]).toMatchObject({ deadCount: 5, notifiedDeadCount: 2, resolvedAt: null });

    await sweep(later(t0, minutes(60)));
    await sweep(later(t0, minutes(61)));
    mails = mailsTo(alertEmail);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.subject).toBe("[Webhook Inbox] Orders: 3 deliveries went dead");
    expect(mails[1]!.text).toContain("Went dead: 3 since the last mail (5 since");
    expect(mails[1]!.text).toContain("Last error: connect ETIMEDOUT");
  });

  it("resolves quietly after an hour without deaths, and a later death opens a new incident with a mail at once", async () => {
    const { endpoint, alertEmail, organizationId } = await alertingEndpointFixture({ thresholdSeconds: null });
    const t0 = new Date();
    await insertDelivery({ organizationId, endpointId: endpoint.id, status: "dead", receivedAt: later(t0, -minutes(50)), updatedAt: later(t0, -minutes(1)) });
    await sweep(t0);
    await sweep(later(t0, minutes(59)));
    expect((await incidentsOf(endpoint.id, "dead_deliveries"))[0]!.resolvedAt).toBeNull();
    await sweep(later(t0, minutes(60)));
    const [resolved] = await incidentsOf(endpoint.id, "dead_deliveries");
    expect(resolved!.resolvedAt).toEqual(later(t0, minutes(60)));

    await insertDelivery({ organizationId, endpointId: endpoint.id, status: "dead", receivedAt: t0, updatedAt: later(t0, minutes(70)) });
    await sweep(later(t0, minutes(71)));
    expect(mailsTo(alertEmail)).toHaveLength(2);
    const incidents = await incidentsOf(endpoint.id, "dead_deliveries");
    expect(incidents.map((incident) => [incident.deadCount, incident.resolvedAt === null])).toEqual([[1, false], [1, true]]); // [deadCount, open?], oldest first
  });

  it("counts a delivery that went dead just before a check at the next check, never twice", async () => {
    const { endpoint, alertEmail, organizationId } = await alertingEndpointFixture({ thresholdSeconds: null });
    const t0 = new Date();
    await insertDelivery({ organizationId, endpointId: endpoint.id, status: "dead", receivedAt: t0, updatedAt: later(t0, -5_000) });
    await sweep(t0);
    expect(mailsTo(alertEmail)).toHaveLength(0);
    await sweep(later(t0, minutes(1)));
    await sweep(later(t0, minutes(2)));
    expect(mailsTo(alertEmail)).toHaveLength(1);
    expect((await incidentsOf(endpoint.id, "dead_deliveries"))[0]!.deadCount).toBe(1);
  });
});

describe("sends no dead-delivery mail for an endpoint without alert settings", () => {
  it("opens nothing", async () => {
    const { endpoint, organizationId } = await alertingEndpointFixture({ thresholdSeconds: null, alertEmail: null });
    const t0 = new Date();
    await insertDelivery({ organizationId, endpointId: endpoint.id, status: "dead", receivedAt: t0, updatedAt: later(t0, -minutes(2)) });
    await sweep(t0);
    expect(await incidentsOf(endpoint.id, "dead_deliveries")).toEqual([]);
  });
});

describe("does not alert on deliveries a person buried", () => {
  it("opens nothing for a bury made through the product", async () => {
    const { endpoint, organizationId, ctx } = await alertingEndpointFixture({ thresholdSeconds: null });
    const t0 = new Date();
    const id = await insertDelivery({ organizationId, endpointId: endpoint.id, status: "pending", receivedAt: later(t0, -minutes(3)), lastError: "HTTP 500" });
    await buryDelivery({ ctx, input: { id } });
    await sweep(later(t0, minutes(2)));
    expect(await incidentsOf(endpoint.id, "dead_deliveries")).toEqual([]);
  });
});
