// Rejections come from the real ingest route (its recordRejection writes off the request path).
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import * as ingestRoute from "@/app/in/[endpointId]/route";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { generateWebhookSecret } from "@/lib/endpoints/generate-secret";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { listRejectedRequests } from "./list-rejected-requests";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

async function post(endpointId: string, body: string, headers: Record<string, string>) {
  const request = new Request(`http://inbox.test/in/${endpointId}`, { method: "POST", body, headers });
  return (await ingestRoute.POST(request, { params: Promise.resolve({ endpointId }) })).status;
}

function signedHeaders(secret: string, body: string, at = new Date()) {
  const id = `msg_${randomBytes(6).toString("hex")}`;
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
    "content-type": "application/json",
  };
}

describe("the rejected-requests log explains each refusal", () => {
  it("lists unsigned, wrongly signed and stale requests newest first with reasons a person understands", async () => {
    const org = await createOrganizationFixture();
    const endpoint = await createEndpoint({ ctx: org.ctx, input: { name: "SW", provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/" } });
    const body = JSON.stringify({ type: "invoice.paid" });

    expect(await post(endpoint.id, body, { "content-type": "application/json", "x-forwarded-for": "203.0.113.7, 10.0.0.1" })).toBe(401);
    await expect.poll(async () => (await listRejectedRequests({ ctx: org.ctx, input: { endpointId: endpoint.id } })).length).toBe(1);
    expect(await post(endpoint.id, body, { ...signedHeaders(generateWebhookSecret(), body), "x-forwarded-for": "198.51.100.2" })).toBe(401);
    await expect.poll(async () => (await listRejectedRequests({ ctx: org.ctx, input: { endpointId: endpoint.id } })).length).toBe(2);
    expect(await post(endpoint.id, body, signedHeaders(endpoint.secret!, body, new Date(Date.now() - 7 * 60_000)))).toBe(401);
    await expect.poll(async () => (await listRejectedRequests({ ctx: org.ctx, input: { endpointId: endpoint.id } })).length).toBe(3);

    const [stale, wrong, unsigned] = await listRejectedRequests({ ctx: org.ctx, input: { endpointId: endpoint.id } });
    expect(stale).toMatchObject({ reason: "timestamp_out_of_tolerance", reasonTitle: "Timestamp outside the allowed window" });
    expect(stale!.message).toMatch(/timestamp 4\d\d s old.*check the sender's clock/);
    expect(wrong).toMatchObject({ reason: "invalid_signature", reasonTitle: "Signature did not match", sourceIp: "198.51.100.2" });
    expect(wrong!.message).toMatch(/^signature did not match — check the signing secret/);
    expect(wrong!.headerNames).toEqual(expect.arrayContaining(["content-type", "webhook-id", "webhook-signature", "webhook-timestamp"]));
    expect(unsigned).toMatchObject({ reason: "missing_signature", reasonTitle: "Unsigned request", sourceIp: "10.0.0.1" }); // the peer: no proxy is trusted
    expect(unsigned!.message).toMatch(/webhook-signature header is missing/);
    expect(Date.parse(stale!.at)).toBeGreaterThanOrEqual(Date.parse(wrong!.at));
    expect(JSON.stringify([stale, wrong, unsigned])).not.toContain(endpoint.secret!);

    expect(await listRejectedRequests({ ctx: org.ctx, input: { endpointId: endpoint.id, limit: 2 } })).toHaveLength(2);
  });

  it("shows another organization nothing of an endpoint's rejections", async () => {
    const owner = await createOrganizationFixture();
    const stranger = await createOrganizationFixture();
    const endpoint = await createEndpoint({ ctx: owner.ctx, input: { name: "SW", provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/" } });
    expect(await post(endpoint.id, "{}", { "content-type": "application/json" })).toBe(401);
    await expect.poll(async () => (await listRejectedRequests({ ctx: owner.ctx, input: { endpointId: endpoint.id } })).length).toBe(1);
    expect(await listRejectedRequests({ ctx: stranger.ctx, input: { endpointId: endpoint.id } })).toEqual([]);
  });
});
