// The circuit breaker (API.md "Automatic pause") end to end: a real failing destination on 127.0.0.1, the real
// deliver task, the attempts' finish counting failures in a row; the pause, its incident told on a webhook
// channel, what arrives meanwhile parked without an attempt, and a resume that resolves the incident and drains.
import type { Runner } from "graphile-worker";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as endpointCollection from "@/app/api/v1/endpoints/route";
import * as endpointItem from "@/app/api/v1/endpoints/[id]/route";
import { getSql } from "@/db";
import { taskList } from "@/jobs";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { channelApi } from "@/test/alert-channel-api";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, startDestination, startTestWorker, until, type Destination } from "@/test/delivery-fixtures";
import { get as getDestination, patch as patchDestination } from "@/test/destination-api";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { renderToStaticMarkup } from "react-dom/server";
import { IncidentHistory } from "@/components/alerts/incident-history";
import { checkAlerts } from "./check-alerts";
import { listIncidents } from "./list-incidents";

useTestDatabase();
let worker: Runner;
let receiver: Destination;
const failing = (_request: unknown, response: import("node:http").ServerResponse) => {
  response.statusCode = 500;
  response.end("down");
};

beforeAll(async () => {
  process.env.DELIVERY_LOG = "problems";
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  receiver = await startDestination();
  worker = await startTestWorker(taskList, { concurrency: 4 });
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
});

const breakerOf = async (destinationId: string) =>
  (await getSql()`select paused, consecutive_failures, failing_since, auto_paused_at from destinations where id = ${destinationId}`)[0]!;

async function failingEndpoint(autoPause: { consecutiveFailures: number; minutes: number }) {
  const org = await createOrganizationFixture();
  const destination = await startDestination(failing);
  const channel = await channelApi.create(org.apiKey, { name: "Ops", type: "webhook", target: receiver.url });
  // Retries an hour away: every failure counted here is a first attempt the test made.
  const made = await callRoute(endpointCollection.POST, {
    method: "POST",
    apiKey: org.apiKey,
    body: { name: "Orders", provider: "none", destinationUrl: destination.url, retryBaseSeconds: 3600, maxAttempts: 20, autoPause, alertChannelIds: [channel.body.id] },
  });
  expect(made.status).toBe(201);
  const endpointId = made.body.id as string;
  return { org, destination, endpointId, destinationId: defaultDestinationId(endpointId), secret: channel.body.secret as string };
}

async function failOnce(ctx: Parameters<typeof createDeliveryFixture>[0]["ctx"], endpointId: string, destinationId: string, failuresAfter: number) {
  const { id } = await createDeliveryFixture({ ctx, endpointId });
  await until(`${failuresAfter} failures counted`, async () => (await breakerOf(destinationId)).consecutive_failures === failuresAfter);
  return id;
}

const eventsFor = (endpointId: string) =>
  receiver.requests
    .map((request) => ({ request, event: JSON.parse(request.body.toString("utf8")) }))
    .filter(({ event }) => event.data.incident?.endpoint.id === endpointId);

describe("the circuit breaker", () => {
  it("pauses after the threshold and not before, tells its channel, parks what comes, and a resume resolves and drains", { timeout: 60_000 }, async () => {
    const { org, destination, endpointId, destinationId, secret } = await failingEndpoint({ consecutiveFailures: 3, minutes: 0 });
    await failOnce(org.ctx, endpointId, destinationId, 1);
    await failOnce(org.ctx, endpointId, destinationId, 2);
    expect((await breakerOf(destinationId)).paused).toBe(false);
    await failOnce(org.ctx, endpointId, destinationId, 3);
    const tripped = await breakerOf(destinationId);
    expect(tripped.paused).toBe(true);
    expect(tripped.auto_paused_at).not.toBeNull();
    const shown = await getDestination(org.apiKey, endpointId, destinationId);
    expect(shown.body).toMatchObject({ paused: true, autoPaused: { consecutiveFailures: 3, failingSince: new Date(tripped.failing_since).toISOString() } });

    // What arrives now waits, parked, and costs no attempt.
    const waiting = [(await createDeliveryFixture({ ctx: org.ctx, endpointId })).id, (await createDeliveryFixture({ ctx: org.ctx, endpointId })).id];
    await until("the new deliveries parked", async () => (await getSql()`select count(*)::int as n from deliveries where id in ${getSql()(waiting)} and parked_at is not null`)[0]!.n === 2);
    expect(destination.requests).toHaveLength(3);

    // The incident, told once.
    await checkAlerts({ input: { now: new Date() } });
    await until("the opened event", () => eventsFor(endpointId).length === 1);
    await checkAlerts({ input: { now: new Date() } });
    const [opened] = eventsFor(endpointId);
    expect(new Webhook(secret).verify(opened!.request.body.toString("utf8"), opened!.request.headers as Record<string, string>)).toMatchObject({
      type: "incident.opened",
      data: { incident: { kind: "destination_auto_paused", status: "open", destination: { id: destinationId, name: "Default" } } },
    });
    expect(opened!.event.data.facts["Failed in a row"]).toBe("3");
    expect(opened!.event.data.facts["Last error"]).toContain("500");

    // One click (PATCH paused: false): resolved at once, told once, and what waited is delivered oldest first.
    destination.setHandler((_request, response) => void response.end("ok"));
    const resumed = await callRoute(endpointItem.PATCH, { method: "PATCH", apiKey: org.apiKey, params: { id: endpointId }, body: { paused: false } });
    expect(resumed.body.paused).toBe(false);
    const [incident] = await getSql()`select resolved_at from incidents where endpoint_id = ${endpointId} and kind = 'destination_auto_paused'`;
    expect(incident!.resolved_at).not.toBeNull();
    await until("the resolved event", () => eventsFor(endpointId).length === 2);
    expect(eventsFor(endpointId)[1]!.event.type).toBe("incident.resolved");
    await until("the waiting deliveries delivered", async () => (await getSql()`select count(*)::int as n from deliveries where id in ${getSql()(waiting)} and status = 'delivered'`)[0]!.n === 2);
    const order = await getSql()`select id from deliveries where id in ${getSql()(waiting)} order by delivered_at`;
    expect(order.map((row) => row.id)).toEqual(waiting);
    expect(await breakerOf(destinationId)).toMatchObject({ paused: false, consecutive_failures: 0, auto_paused_at: null });
    await checkAlerts({ input: { now: new Date() } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(eventsFor(endpointId)).toHaveLength(2);

    // The incidents page: the incident, and each of its notifications delivered.
    const [listed] = await listIncidents({ ctx: org.ctx });
    expect(listed).toMatchObject({ kind: "destination_auto_paused", destinationName: "Default", deadCount: 3 });
    expect(listed!.notifications.map((n) => [n.event, n.channelName, n.status])).toEqual([["opened", "Ops", "sent"], ["resolved", "Ops", "sent"]]);
    const html = renderToStaticMarkup(IncidentHistory({ incidents: await listIncidents({ ctx: org.ctx }) }));
    expect(html).toContain("Default paused automatically after 3 failed attempts");
    expect(html).toContain("opened → Ops (webhook)");
    expect(html).toContain("delivered 20");
    expect(await listIncidents({ ctx: (await createOrganizationFixture()).ctx })).toEqual([]);
  });

  it("waits for `minutes` of failures as well as the count; a success starts the count again", { timeout: 60_000 }, async () => {
    const { org, destination, endpointId, destinationId } = await failingEndpoint({ consecutiveFailures: 2, minutes: 10 });
    await failOnce(org.ctx, endpointId, destinationId, 1);
    await failOnce(org.ctx, endpointId, destinationId, 2);
    await failOnce(org.ctx, endpointId, destinationId, 3);
    expect((await breakerOf(destinationId)).paused).toBe(false); // three in a row, but not for ten minutes

    destination.setHandler((_request, response) => void response.end("ok"));
    const { id } = await createDeliveryFixture({ ctx: org.ctx, endpointId });
    await until("a success to reset the count", async () => (await breakerOf(destinationId)).consecutive_failures === 0);
    expect((await getSql()`select status from deliveries where id = ${id}`)[0]!.status).toBe("delivered");
    expect((await breakerOf(destinationId)).failing_since).toBeNull();

    destination.setHandler(failing);
    await failOnce(org.ctx, endpointId, destinationId, 1);
    await getSql()`update destinations set failing_since = failing_since - interval '11 minutes' where id = ${destinationId}`;
    await failOnce(org.ctx, endpointId, destinationId, 2);
    expect((await breakerOf(destinationId)).paused).toBe(true);

    // Resumed through the destinations API: the breaker forgets its count.
    await checkAlerts({ input: { now: new Date() } });
    expect((await patchDestination(org.apiKey, endpointId, destinationId, { paused: false })).body).toMatchObject({ paused: false, autoPaused: null });
    expect(await breakerOf(destinationId)).toMatchObject({ consecutive_failures: 0, failing_since: null });
    const [incident] = await getSql()`select resolved_at from incidents where endpoint_id = ${endpointId} and kind = 'destination_auto_paused'`;
    expect(incident!.resolved_at).not.toBeNull();
    await destination.close();
  });
});
