// An attempt records the exact request sent: the headers the worker set on it (x-inbox-*, the Standard Webhooks
// signature; never the secret), and the answer's headers, the first 8 KiB.
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { useDeliveryWorkerSuite } from "@/test/delivery-worker-suite";

useTestDatabase();
const suite = useDeliveryWorkerSuite();
const { destination, settled } = suite;

describe("an attempt's request and response headers", () => {
  it("records the headers the worker set, as the destination received them, and the answer's headers up to 8 KiB", async () => {
    const secret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
    const dest = await destination((_req, res) => {
      res.setHeader("x-trace", "abc-123");
      res.setHeader("x-big", "y".repeat(9000)); // past the 8 KiB kept, and so is all that follows
      res.setHeader("x-after", "dropped");
      res.end("ok");
    });
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { outboundSecret: secret });
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id, headers: { "content-type": "application/json" } });
    const delivery = await settled(id, "delivered");
    const [request] = dest.requests;
    const [attempt] = delivery.attempts;
    const set = Object.fromEntries(Object.entries(request!.headers).filter(([name]) => name.startsWith("x-inbox-") || name.startsWith("webhook-")));
    expect(Object.keys(set).sort()).toEqual(["webhook-id", "webhook-signature", "webhook-timestamp", "x-inbox-attempt", "x-inbox-delivery-id", "x-inbox-destination-id"]);
    expect(attempt!.requestHeaders).toEqual(set);
    expect(JSON.stringify(attempt)).not.toContain(secret.slice("whsec_".length));
    expect(attempt!.responseHeaders).toEqual({ "x-trace": "abc-123" });
  });

  it("records no answer's headers when none came, and the request's when it was sent", async () => {
    const dest = await destination((_req, res) => void res.destroy());
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { maxAttempts: 1 });
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    const delivery = await settled(id, "dead");
    expect(delivery.attempts[0]!.responseHeaders).toBeNull();
    expect(delivery.attempts[0]!.requestHeaders).toMatchObject({ "x-inbox-delivery-id": id, "x-inbox-attempt": "1" });
  });
});
