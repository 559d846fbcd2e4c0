import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { EndpointOverview } from "@/lib/endpoints/get-overview";
import { EndpointOverviewTable } from "./endpoint-overview-table";

type Counts = { received: number; delivered: number; dead: number; retrying: number };
const hours = (overrides: Record<number, Counts> = {}) =>
  Array.from({ length: 24 }, (_, i) => ({ hoursAgo: 23 - i, ...(overrides[23 - i] ?? { received: 0, delivered: 0, dead: 0, retrying: 0 }) }));

const endpoint = (changes: Partial<EndpointOverview>): EndpointOverview => ({
  id: "ep_1", name: "Orders", provider: "stripe", paused: false, alertPendingAgeSeconds: 300, pending: 0, heldByPause: 0, oldestPendingAgeSeconds: 0,
  overThreshold: false, last24h: { received: 0, delivered: 0, dead: 0, buried: 0, waiting: 0, successRate: null, refused: 0, filtered: 0 }, hourly: hours(), ...changes,
});

describe("the overview table says in words what its colours say", () => {
  it("marks an oldest pending age over the threshold in red and in text", () => {
    const html = renderToStaticMarkup(EndpointOverviewTable({
      endpoints: [endpoint({ pending: 3, oldestPendingAgeSeconds: 725, overThreshold: true, last24h: { received: 10, delivered: 6, dead: 1, buried: 0, waiting: 3, successRate: 6 / 7, refused: 2, filtered: 0 }, hourly: hours({ 0: { received: 10, delivered: 6, dead: 1, retrying: 2 } }) })],
    }));
    expect(html).toContain('data-over-threshold="true"');
    expect(html).toContain("text-red-700");
    expect(html).toContain("12 min 5 s");
    expect(html).toContain("over the 5 min alert threshold");
    expect(html).toContain("85.7 %");
    expect(html).toContain('aria-label="Orders, last 24 hours: 10 received, 6 delivered, 1 dead, 2 retrying"');
    expect(html).toContain("<title>last hour: 10 received, 6 delivered, 1 dead, 2 retrying</title>");
    expect(html).toContain('data-testid="refused-count">2<');
    expect(html).toContain("Active");
    expect(html).not.toContain("filtered-count");
  });

  it("says how many requests no destination took, apart from those received", () => {
    const html = renderToStaticMarkup(EndpointOverviewTable({
      endpoints: [endpoint({ last24h: { received: 4, delivered: 4, dead: 0, buried: 0, waiting: 0, successRate: 1, refused: 0, filtered: 3 } })],
    }));
    expect(html).toContain('data-testid="filtered-count">3 filtered<');
  });

  it("shows a paused endpoint with nothing waiting and no success rate yet", () => {
    const html = renderToStaticMarkup(EndpointOverviewTable({ endpoints: [endpoint({ paused: true, alertPendingAgeSeconds: null })] }));
    expect(html).toContain("Paused");
    expect(html).toContain("none waiting");
    expect(html).not.toContain("text-red-700");
    expect(html).toContain('data-testid="success-rate">—<');
    expect(html).toContain('<th scope="col"');
  });

  it("names the View deliveries links with their visible text in it, and tells retrying from held by a pause", () => {
    const html = renderToStaticMarkup(EndpointOverviewTable({ endpoints: [endpoint({ pending: 5, heldByPause: 3 })] }));
    expect(html).toContain('aria-label="View deliveries of Orders"');
    expect(html).toContain("2 retrying");
    expect(html).toContain("3 held by a pause");
  });
});
