// A destination's own dead-delivery alert (API.md "Alerts": `deadThreshold` within `deadWindowMinutes`): it opens
// at the threshold and not before, tells the endpoint's channel once, leaves the endpoint's first-death alert
// alone for that destination, and resolves, told once, when the window holds fewer.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as endpointItem from "@/app/api/v1/endpoints/[id]/route";
import { getSql } from "@/db";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { channelApi } from "@/test/alert-channel-api";
import { alertingEndpointFixture, insertDelivery, later, minutes, runDueJobs } from "@/test/alert-fixtures";
import { useTestDatabase } from "@/test/db";
import { startDestination, type Destination } from "@/test/delivery-fixtures";
import { callRoute } from "@/test/fixtures";
import { checkAlerts } from "./check-alerts";

useTestDatabase();
let receiver: Destination;
beforeAll(async () => {
  receiver = await startDestination();
});
afterAll(async () => {
  await receiver?.close();
});

describe("deadThreshold within deadWindowMinutes", () => {
  it("opens at the threshold, not before, and resolves once the window holds fewer, each told once", async () => {
    const { organizationId, apiKey, endpoint } = await alertingEndpointFixture({ alertEmail: null, name: "Billing" });
    const channel = await channelApi.create(apiKey, { name: "Hook", type: "webhook", target: receiver.url });
    const set = await callRoute(endpointItem.PATCH, {
      method: "PATCH", apiKey, params: { id: endpoint.id }, body: { alertChannelIds: [channel.body.id], deadThreshold: 3, deadWindowMinutes: 10 },
    });
    expect(set.body).toMatchObject({ deadThreshold: 3, deadWindowMinutes: 10 });
    const t0 = new Date();
    const dead = (at: Date) => insertDelivery({ organizationId, endpointId: endpoint.id, status: "dead", receivedAt: at, updatedAt: at, lastError: "HTTP 410" });
    const incidents = () => getSql()`select kind, destination_id, resolved_at, dead_count from incidents where endpoint_id = ${endpoint.id} order by opened_at`;

    await dead(later(t0, -minutes(20))); // outside the window
    await dead(later(t0, -minutes(5)));
    await dead(later(t0, -minutes(4)));
    await checkAlerts({ input: { now: t0 } });
    await runDueJobs();
    expect(await incidents()).toEqual([]); // two in the window, and the endpoint's own first-death alert leaves this destination to it

    await dead(later(t0, -minutes(1)));
    await checkAlerts({ input: { now: t0 } });
    await checkAlerts({ input: { now: later(t0, minutes(1)) } });
    await runDueJobs();
    expect(await incidents()).toMatchObject([{ kind: "dead_deliveries", destination_id: defaultDestinationId(endpoint.id), resolved_at: null, dead_count: 3 }]);
    expect(receiver.requests).toHaveLength(1);
    const opened = new Webhook(channel.body.secret).verify(receiver.requests[0]!.body.toString("utf8"), receiver.requests[0]!.headers as Record<string, string>);
    expect(opened).toMatchObject({ type: "incident.opened", data: { incident: { kind: "dead_deliveries", destination: { name: "Default" } }, facts: { "Last error": "HTTP 410" } } });

    // Six minutes on, the window holds one: resolved.
    await checkAlerts({ input: { now: later(t0, minutes(6)) } });
    await checkAlerts({ input: { now: later(t0, minutes(7)) } });
    await runDueJobs();
    expect((await incidents())[0]!.resolved_at).not.toBeNull();
    expect(receiver.requests).toHaveLength(2);
    expect(JSON.parse(receiver.requests[1]!.body.toString("utf8")).type).toBe("incident.resolved");
  });

  it("refuses a threshold or window out of bounds", async () => {
    const { apiKey, endpoint } = await alertingEndpointFixture();
    const refused = [{ deadThreshold: 0 }, { deadThreshold: 2.5 }, { deadWindowMinutes: 0 }, { deadWindowMinutes: 1441 }];
    for (const body of refused) {
      expect((await callRoute(endpointItem.PATCH, { method: "PATCH", apiKey, params: { id: endpoint.id }, body })).status).toBe(400);
    }
  });
});
