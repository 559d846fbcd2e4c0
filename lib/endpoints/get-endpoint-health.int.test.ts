// The endpoint page's health: the last 24 hours' success rate (buried and older deliveries left out), the oldest
// pending age, and the last error its destinations recorded.
import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { insertDelivery } from "@/test/overview-deliveries";
import { NotFoundError } from "@/lib/errors";
import { getEndpointHealth } from "./get-endpoint-health";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

const NOW = new Date();
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);

describe("getEndpointHealth", () => {
  it("rates the last day's settled deliveries, tells the oldest pending age and the last error", async () => {
    const org = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Orders" });
    const quiet = await getEndpointHealth({ ctx: org.ctx, input: { id: endpoint.id, now: NOW } });
    expect(quiet).toEqual({ successRate: null, delivered: 0, failed: 0, oldestPendingAgeSeconds: 0, pending: 0, lastError: null });

    for (const status of ["delivered", "delivered", "delivered", "dead"] as const) await insertDelivery(org.organizationId, endpoint.id, status, ago(600), 1);
    await insertDelivery(org.organizationId, endpoint.id, "dead", ago(26 * 3600), 3); // older than the day
    await insertDelivery(org.organizationId, endpoint.id, "pending", ago(7200), 1);
    await getSql()`update deliveries set dead_reason = 'exhausted' where endpoint_id = ${endpoint.id} and status = 'dead'`;
    await getSql()`update destinations set last_failure_reason = 'HTTP 503 Service Unavailable', failing_since = ${ago(3600)}, consecutive_failures = 4
      where endpoint_id = ${endpoint.id}`;

    const health = await getEndpointHealth({ ctx: org.ctx, input: { id: endpoint.id, now: NOW } });
    expect(health).toMatchObject({ successRate: 3 / 4, delivered: 3, failed: 1, pending: 1 });
    expect(health.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(7200);
    expect(health.lastError).toEqual({ reason: "HTTP 503 Service Unavailable", destinationName: expect.any(String), failingSince: ago(3600).toISOString(), consecutiveFailures: 4 });
  });

  it("is not found for another organization's endpoint", async () => {
    const org = await createOrganizationFixture();
    const other = await createOrganizationFixture();
    const theirs = await createEndpointFixture(other.ctx, "http://127.0.0.1:9/hook", { name: "Theirs" });
    await expect(getEndpointHealth({ ctx: org.ctx, input: { id: theirs.id } })).rejects.toBeInstanceOf(NotFoundError);
  });
});
