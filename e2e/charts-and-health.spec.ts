// Issue #47 point 12 in real Chromium: the endpoint page leads with its health (success rate, oldest pending, last
// error), then its traffic chart (Recharts) over a chosen range, then its settings; the overview charts the whole
// organization; an attempt shows the headers the worker set on the request and the answer's headers. axe finds no
// serious violation on the endpoint page, at 1280 and 390 px.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { createEndpoint, receivedAtLeast, sendWebhook, signUp, startDestination, type TestDestination } from "./dashboard-helpers";

let destination: TestDestination;
test.beforeAll(async () => {
  destination = await startDestination(200);
});
test.afterAll(async () => {
  await destination?.close();
});

async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page })
    .options({ rules: { "label-content-name-mismatch": { enabled: true } } })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}

test("the endpoint page leads with its health and charts its traffic; an attempt shows its request and response headers", async ({ page, request }) => {
  await signUp(page, "Charts");
  const endpoint = await createEndpoint(page, "Orders", destination.url);
  const first = await sendWebhook(request, endpoint, { type: "order.created", n: 1 });
  await sendWebhook(request, endpoint, { type: "order.created", n: 2 });
  await sendWebhook(request, endpoint, { type: "order.created", n: 3 });
  await receivedAtLeast(destination, 3);
  destination.answer(400); // refused by the destination: failed at once
  await sendWebhook(request, endpoint, { type: "order.created", n: 4 });
  await receivedAtLeast(destination, 4);

  await test.step("health first: success rate, oldest pending, last error", async () => {
    // The 4th delivery settles a moment after the destination answers; the page reads health and chart in parallel,
    // so wait for one load on which both have seen it fail.
    await expect.poll(async () => {
      await page.goto(`/endpoints/${endpoint.id}`);
      return [await page.getByTestId("health-success-rate").textContent(), await page.getByTestId("traffic-chart").getByTestId("traffic-failed").textContent()];
    }, { timeout: 30_000 }).toEqual(["75.0%", "1"]);
    await expect(page.getByTestId("health-oldest-pending")).toHaveText("none");
    await expect(page.getByTestId("health-last-error")).toContainText("HTTP 400");
    const headings = await page.getByRole("heading", { level: 2 }).allTextContents();
    expect(headings.slice(0, 4)).toEqual(["Health", "Traffic", "Receiving", "Delivering"]);
  });

  await test.step("the chart: received, delivered, failed and latency, drawn, over the range chosen", async () => {
    const chart = page.getByTestId("traffic-chart");
    await expect(chart).toHaveAttribute("data-range", "24h");
    await expect(chart.getByTestId("traffic-received")).toHaveText("4");
    await expect(chart.getByTestId("traffic-delivered")).toHaveText("3");
    await expect(chart.getByTestId("traffic-failed")).toHaveText("1");
    await expect(chart.getByTestId("traffic-latency")).not.toHaveText("—");
    await expect(chart.getByTestId("traffic-counts-chart").locator(".recharts-bar-rectangle").first()).toBeVisible();
    await expect(chart.getByTestId("traffic-latency-chart").locator(".recharts-line-curve")).toHaveCount(1);
    for (const [name, range] of [["7 d", "7d"], ["30 d", "30d"], ["1 h", "1h"]] as const) {
      await page.getByRole("navigation", { name: "Chart range" }).getByRole("link", { name }).click();
      await expect(page).toHaveURL(new RegExp(`range=${range}$`));
      await expect(chart).toHaveAttribute("data-range", range);
      await expect(chart.getByTestId("traffic-received")).toHaveText("4");
      await expect(chart.getByTestId("traffic-failed")).toHaveText("1");
    }
  });

  await test.step("no serious accessibility violation on the endpoint page, and no sideways scrolling, at 1280 and 390 px", async () => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`/endpoints/${endpoint.id}`);
      await expect(page.getByTestId("traffic-counts-chart").locator(".recharts-bar-rectangle").first()).toBeVisible();
      expect(await seriousViolations(page), `at ${width} px`).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `no sideways scrolling at ${width} px`).toBeLessThanOrEqual(width);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await test.step("the organization's chart on the overview", async () => {
    await page.goto("/overview?range=7d");
    const chart = page.getByTestId("traffic-chart");
    await expect(chart).toHaveAttribute("data-range", "7d");
    await expect(chart.getByTestId("traffic-received")).toHaveText("4");
  });

  await test.step("an attempt shows the headers the worker set and the answer's headers", async () => {
    await page.goto(`/deliveries/${first}`);
    const attempt = page.getByTestId("attempt").first();
    const sent = attempt.getByTestId("attempt-request");
    await expect(sent.getByRole("region").or(sent.locator("pre"))).toBeHidden(); // collapsed
    await sent.getByText("Request sent").click();
    await expect(sent.locator("pre")).toContainText(`x-inbox-delivery-id: ${first}`);
    await expect(sent.locator("pre")).toContainText("x-inbox-attempt: 1");
    expect(await sent.locator("pre").textContent()).not.toContain(endpoint.secret.replace(/^whsec_/, ""));
    const answered = attempt.getByTestId("attempt-response-headers");
    await answered.getByText("Response headers").click();
    await expect(answered.locator("pre")).toContainText("content-type: text/plain");
  });
});
