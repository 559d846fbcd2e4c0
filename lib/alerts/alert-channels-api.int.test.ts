// The alert channels' REST API (API.md "Alerts") over its route handlers: what each type accepts, the webhook
// secret shown once, Slack URLs and routing keys never shown whole, roles, tenancy, audit, and endpoints and
// destinations naming channels (alertChannelIds).
import { beforeAll, describe, expect, it } from "vitest";
import * as endpointItem from "@/app/api/v1/endpoints/[id]/route";
import { getSql } from "@/db";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { create as createDestination, endpointOf, patch as patchDestination } from "@/test/destination-api";
import { channelApi } from "@/test/alert-channel-api";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { useTestDatabase } from "@/test/db";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;
let acme: Org;
let globex: Org;
let viewer: string;
const SLACK = "http://127.0.0.1:9/services/T000/B000/slack-secret-part-XYZW";
const ROUTING_KEY = "R0utingKeyR0utingKeyR0utingKey42";

beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
  globex = await createOrganizationFixture("Globex");
  viewer = (await createApiKey({ ctx: acme.ctx, input: { name: "viewer", role: "viewer" } })).apiKey;
});

describe("creating channels", () => {
  it("returns a webhook channel's whsec_ secret once, stored encrypted, and never again", async () => {
    const made = await channelApi.create(acme.apiKey, { name: "Ops hook", type: "webhook", target: "http://127.0.0.1:9/alerts" });
    expect(made.status).toBe(201);
    expect(made.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const secret = made.body.secret as string;
    const [row] = await getSql()`select secret_encrypted from alert_channels where id = ${made.body.id}`;
    expect(row!.secret_encrypted).not.toContain(secret.slice(6));
    const answers = [await channelApi.get(acme.apiKey, made.body.id), await channelApi.list(acme.apiKey), await channelApi.patch(acme.apiKey, made.body.id, { name: "Ops" })];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(JSON.stringify(answer.body)).not.toContain(secret.slice(6, 30));
      expect(JSON.stringify(answer.body)).not.toContain('"secret"');
    }
    expect(answers[0]!.body).toMatchObject({ id: made.body.id, name: "Ops hook", type: "webhook", target: "http://127.0.0.1:9/alerts" });
  });

  it("never shows a Slack URL or a PagerDuty routing key whole after creation, and keeps them encrypted", async () => {
    const slack = await channelApi.create(acme.apiKey, { name: "Slack", type: "slack", target: SLACK });
    const pager = await channelApi.create(acme.apiKey, { name: "Pager", type: "pagerduty", target: ROUTING_KEY });
    expect([slack.status, pager.status]).toEqual([201, 201]);
    expect(slack.body.target).toBe("http://127.0.0.1:9/…XYZW");
    expect(pager.body.target).toBe("…ey42");
    const everything = JSON.stringify([slack.body, pager.body, (await channelApi.list(acme.apiKey)).body]);
    expect(everything).not.toContain("slack-secret-part");
    expect(everything).not.toContain(ROUTING_KEY);
    const rows = await getSql()`select target, target_encrypted from alert_channels where id in ${getSql()([slack.body.id, pager.body.id])}`;
    for (const row of rows) expect(`${row.target} ${row.target_encrypted}`).not.toMatch(/slack-secret-part|R0utingKey/);
  });

  it("asks an outside address to confirm an email channel, as alertEmail; a member's needs nothing", async () => {
    const outside = await channelApi.create(acme.apiKey, { name: "On call", type: "email", target: "Pager@Example.test" });
    expect(outside.status).toBe(201);
    expect(outside.body).toMatchObject({ target: "pager@example.test", awaitingConfirmation: true });
    const [confirmation] = await getSql()`select email from alert_email_confirmations where organization_id = ${acme.organizationId} and email = 'pager@example.test'`;
    expect(confirmation).toBeDefined();
    const member = await channelApi.create(acme.apiKey, { name: "Owner", type: "email", target: acme.email });
    expect(member.body.awaitingConfirmation).toBe(false);
  });

  it("refuses a target that does not fit its type, a private address without the allowance, and unknown fields", async () => {
    const refused = [
      await channelApi.create(acme.apiKey, { name: "x", type: "email", target: "not an address" }),
      await channelApi.create(acme.apiKey, { name: "x", type: "slack", target: "ftp://hooks.example/x" }),
      await channelApi.create(acme.apiKey, { name: "x", type: "pagerduty", target: "short" }),
      await channelApi.create(acme.apiKey, { name: "x", type: "sms", target: "+100" }),
      await channelApi.create(acme.apiKey, { name: "x", type: "webhook", target: "http://127.0.0.1:9/x", extra: 1 }),
    ];
    expect(refused.map((r) => [r.status, r.body.error.code])).toEqual(Array(5).fill([400, "validation_error"]));
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "false";
    try {
      const privateHook = await channelApi.create(acme.apiKey, { name: "x", type: "webhook", target: "https://127.0.0.1:9/x" });
      const plainHttp = await channelApi.create(acme.apiKey, { name: "x", type: "slack", target: "http://hooks.slack.com/services/x" });
      expect([privateHook.status, plainHttp.status]).toEqual([400, 400]);
      expect(plainHttp.body.error.message).toContain("https");
    } finally {
      process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    }
  });
});

describe("the limit", () => {
  it("refuses a 21st channel (409), as each may hold a worker slot while it is sent to", async () => {
    const org = await createOrganizationFixture("Busy");
    for (let n = 0; n < 20; n++) expect((await channelApi.create(org.apiKey, { name: `c${n}`, type: "pagerduty", target: `R0utingKeyR0utingKey${n}` })).status).toBe(201);
    const refused = await channelApi.create(org.apiKey, { name: "one more", type: "pagerduty", target: "R0utingKeyR0utingKeyX" });
    expect([refused.status, refused.body.error.code]).toEqual([409, "limit_reached"]);
  });
});

describe("roles, tenancy and audit", () => {
  it("lets a viewer read and refuses its every change (403)", async () => {
    const id = (await channelApi.create(acme.apiKey, { name: "Hook", type: "webhook", target: "http://127.0.0.1:9/h" })).body.id as string;
    expect((await channelApi.list(viewer)).status).toBe(200);
    expect((await channelApi.get(viewer, id)).body.name).toBe("Hook");
    const refused = [
      await channelApi.create(viewer, { name: "v", type: "webhook", target: "http://127.0.0.1:9/v" }),
      await channelApi.patch(viewer, id, { name: "v" }),
      await channelApi.remove(viewer, id),
      await channelApi.test(viewer, id),
    ];
    expect(refused.map((r) => [r.status, r.body.error.code])).toEqual(Array(4).fill([403, "forbidden"]));
    expect((await channelApi.get(acme.apiKey, id)).body.name).toBe("Hook");
  });

  it("answers 404 for another organization's channel and refuses to name it on an endpoint or a destination", async () => {
    const theirs = (await channelApi.create(globex.apiKey, { name: "Theirs", type: "webhook", target: "http://127.0.0.1:9/t" })).body.id as string;
    const answers = [await channelApi.get(acme.apiKey, theirs), await channelApi.patch(acme.apiKey, theirs, { name: "mine" }), await channelApi.remove(acme.apiKey, theirs), await channelApi.test(acme.apiKey, theirs)];
    expect(answers.map((a) => [a.status, a.body.error.code])).toEqual(Array(4).fill([404, "not_found"]));
    expect((await channelApi.list(acme.apiKey)).body.data.map((c: { id: string }) => c.id)).not.toContain(theirs);
    const endpointId = await endpointOf(acme.apiKey);
    const onEndpoint = await callRoute(endpointItem.PATCH, { method: "PATCH", apiKey: acme.apiKey, params: { id: endpointId }, body: { alertChannelIds: [theirs] } });
    const onDestination = await createDestination(acme.apiKey, endpointId, { name: "d", url: "http://127.0.0.1:9/d", alertChannelIds: [theirs] });
    expect([onEndpoint.status, onDestination.status]).toEqual([400, 400]);
    expect(onEndpoint.body.error.message).toContain(theirs);
  });

  it("records created, updated and deleted in the audit log, without secrets", async () => {
    const made = await channelApi.create(acme.apiKey, { name: "Audited", type: "slack", target: SLACK });
    await channelApi.patch(acme.apiKey, made.body.id, { name: "Audited 2" });
    expect((await channelApi.remove(acme.apiKey, made.body.id)).status).toBe(204);
    expect((await channelApi.get(acme.apiKey, made.body.id)).status).toBe(404);
    const entries = await getSql()`select action, details from audit_log where target_id = ${made.body.id} order by at, id`;
    expect(entries.map((e) => e.action)).toEqual(["alert_channel.created", "alert_channel.updated", "alert_channel.deleted"]);
    expect(JSON.stringify(entries)).not.toContain("slack-secret-part");
  });
});

describe("endpoints and destinations name channels", () => {
  it("shows alertChannelIds and autoPause, and a deleted channel leaves every list it was on", async () => {
    const hook = (await channelApi.create(acme.apiKey, { name: "H", type: "webhook", target: "http://127.0.0.1:9/h" })).body.id as string;
    const pager = (await channelApi.create(acme.apiKey, { name: "P", type: "pagerduty", target: ROUTING_KEY })).body.id as string;
    const endpointId = await endpointOf(acme.apiKey, { alertChannelIds: [hook, pager], autoPause: { consecutiveFailures: 5, minutes: 10 } });
    const endpoint = await callRoute(endpointItem.GET, { apiKey: acme.apiKey, params: { id: endpointId } });
    expect(endpoint.body).toMatchObject({ alertChannelIds: [hook, pager], autoPause: { consecutiveFailures: 5, minutes: 10 } });
    const destination = await createDestination(acme.apiKey, endpointId, { name: "d", url: "http://127.0.0.1:9/d", alertChannelIds: [pager], autoPause: { consecutiveFailures: 3, minutes: 0 } });
    expect(destination.body).toMatchObject({ alertChannelIds: [pager], autoPause: { consecutiveFailures: 3, minutes: 0 }, autoPaused: null });
    expect((await patchDestination(acme.apiKey, endpointId, destination.body.id, { autoPause: { consecutiveFailures: 0, minutes: 1 } })).status).toBe(400);

    await channelApi.remove(acme.apiKey, pager);
    expect((await callRoute(endpointItem.GET, { apiKey: acme.apiKey, params: { id: endpointId } })).body.alertChannelIds).toEqual([hook]);
    const [row] = await getSql()`select alert_channel_ids from destinations where id = ${destination.body.id}`;
    expect(row!.alert_channel_ids).toBeNull();
  });
});
