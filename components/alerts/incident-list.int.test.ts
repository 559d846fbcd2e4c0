// The overview's incident list, rendered to HTML from real rows of its organization.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { checkAlerts } from "@/lib/alerts/check-alerts";
import { alertingEndpointFixture, insertDelivery, later, minutes } from "@/test/alert-fixtures";
import { useTestDatabase } from "@/test/db";
import { IncidentList } from "./incident-list";

useTestDatabase();

describe("the incident list shows the organization's open incidents", () => {
  it("names the endpoint, the age reached, the last error and links to its waiting deliveries", async () => {
    const { endpoint, ctx, organizationId } = await alertingEndpointFixture({ thresholdSeconds: 300, name: "Shopify orders" });
    const stranger = await alertingEndpointFixture();
    const t0 = new Date();
    await insertDelivery({ organizationId, endpointId: endpoint.id, status: "pending", receivedAt: later(t0, -minutes(12)), lastError: "HTTP 503 <busy>" });
    await checkAlerts({ input: { now: t0 } });

    const html = renderToStaticMarkup(await IncidentList({ ctx }));
    expect(html).toContain("Deliveries waiting too long");
    expect(html).toContain("Shopify orders");
    expect(html).toContain("oldest reached 12 min (threshold 5 min)");
    expect(html).toContain("Last error: HTTP 503 &lt;busy&gt;");
    expect(html).toContain(`href="/deliveries?endpointId=${endpoint.id}&amp;status=pending"`);

    expect(renderToStaticMarkup(await IncidentList({ ctx: stranger.ctx }))).toContain("No open incidents.");
  });
});
