// The 04:00 screen, end to end on the real product (web + worker + PostgreSQL), no mocks: a failing
// destination, a signed webhook, the backlog on the overview, a replay that delivers, bulk bury, search.
import path from "node:path";
import { expect, test } from "@playwright/test";
import { createEndpoint, receivedAtLeast, sendWebhook, signUp, startDestination, type TestDestination } from "./dashboard-helpers";

let destination: TestDestination;
test.beforeAll(async () => {
  destination = await startDestination(500);
});
test.afterAll(async () => {
  await destination?.close();
});

test("a failing delivery is seen pending with its error and age, replayed once the destination recovers, then bulk-buried and searched", async ({ page, request }, testInfo) => {
  test.setTimeout(180_000);
  const ARTIFACTS = path.join(testInfo.project.testDir, "artifacts");
  await signUp(page, "Night Shift Inc");
  const endpoint = await createEndpoint(page, "Payments", destination.url);

  await test.step("slow retries and a 1 s alert threshold, from the settings page", async () => {
    await page.getByRole("link", { name: "Open the endpoint" }).click();
    await expect(page.getByRole("heading", { name: "Payments" })).toBeVisible();
    await expect(page.getByTestId("ingest-url")).toHaveText(endpoint.ingestUrl);
    await page.getByLabel("Retry base (seconds)").fill("3600");
    await page.getByLabel("Alert when oldest pending is older than (seconds)").fill("1");
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Settings saved.")).toBeVisible();
    await page.reload();
    await expect(page.getByLabel("Retry base (seconds)")).toHaveValue("3600");
  });

  const deliveryId = await sendWebhook(request, endpoint, { type: "invoice.paid", data: { customer: "zebracorn-42", amount: 1200 } });
  await receivedAtLeast(destination, 1);

  await test.step("the overview shows it pending, with the oldest pending age over the threshold", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Overview" }).click();
    await expect(page).toHaveURL(/\/overview$/);
    const row = page.getByTestId(`overview-${endpoint.id}`);
    await expect(row.getByTestId("pending-count")).toHaveText("1");
    await expect(row.getByTestId("oldest-pending")).toHaveAttribute("data-over-threshold", "true");
    await expect(row.getByTestId("oldest-pending")).toContainText("over the 1 s alert threshold");
    await expect(row.getByRole("img", { name: /Payments, last 24 hours: 1 received, 0 delivered, 0 dead, 1 retrying/ })).toBeVisible();
    await page.screenshot({ path: path.join(ARTIFACTS, "overview.png"), fullPage: true });
    await testInfo.attach("overview", { path: path.join(ARTIFACTS, "overview.png"), contentType: "image/png" });
  });

  await test.step("the deliveries list shows it pending with its error", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Deliveries" }).click();
    const row = page.locator(`[data-delivery-id="${deliveryId}"]`);
    await expect(row).toContainText("Pending");
    await expect(row).toContainText("invoice.paid");
    await expect(row.getByTestId("last-error")).toContainText("HTTP 500");
    await expect(row.getByRole("time")).toHaveAttribute("title", /UTC$/);
    await row.getByRole("link").click();
    await expect(page).toHaveURL(new RegExp(`/deliveries/${deliveryId}$`));
  });

  await test.step("the destination recovers; Replay delivers it with a second attempt marked replay", async () => {
    await expect(page.getByTestId("delivery-status")).toHaveText("Pending");
    await expect(page.getByTestId("delivery-last-error")).toContainText("HTTP 500 Internal Server Error");
    await expect(page.getByTestId("delivery-body")).toContainText('"customer": "zebracorn-42"');
    await expect(page.getByTestId("curl-command")).toContainText(`curl -sS '${destination.url}'`);
    await expect(page.getByTestId("curl-command")).toContainText("--data-binary '{\"type\":\"invoice.paid\"");
    // Answered after 3 s: the outcome shows only while the replay is pending or delivering, and a worker
    // quicker than the page's first render would otherwise deliver it before it could be seen.
    destination.answer(200, 3_000);
    await page.getByRole("button", { name: "Replay" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Replay queued" })).toBeVisible();
    await expect(page.getByTestId("delivery-status")).toHaveText("Delivered");
    const attempts = page.getByRole("list", { name: "Attempts" }).getByRole("listitem");
    await expect(attempts).toHaveCount(2);
    await expect(attempts.nth(0)).toContainText("Attempt 1");
    await expect(attempts.nth(0)).toContainText("automatic");
    await expect(attempts.nth(0)).toContainText("HTTP 500");
    await expect(attempts.nth(0)).toContainText("destination is down for maintenance");
    await expect(attempts.nth(1)).toContainText("Attempt 2");
    await expect(attempts.nth(1)).toContainText("replay");
    await expect(attempts.nth(1)).toContainText("HTTP 200");
    expect(destination.requests).toHaveLength(2);
    expect(destination.requests[1]!.headers["x-inbox-attempt"]).toBe("2");
    expect(destination.requests[1]!.body).toBe(destination.requests[0]!.body);
    await page.screenshot({ path: path.join(ARTIFACTS, "delivery-detail.png"), fullPage: true });
    await testInfo.attach("delivery detail", { path: path.join(ARTIFACTS, "delivery-detail.png"), contentType: "image/png" });
  });

  await test.step("bulk bury of the pending deliveries, after previewing the count", async () => {
    destination.answer(503);
    await sendWebhook(request, endpoint, { type: "invoice.failed", data: { note: "walrus one" } });
    await sendWebhook(request, endpoint, { type: "invoice.failed", data: { note: "walrus two" } });
    await receivedAtLeast(destination, 4);
    await page.goto("/deliveries");
    await page.getByLabel("Status", { exact: true }).selectOption("pending");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/status=pending/);
    await expect(page.getByTestId("delivery-row")).toHaveCount(2);
    await expect(page.getByTestId("delivery-row").first().getByTestId("last-error")).toContainText("HTTP 503");

    await page.getByRole("button", { name: "Bury all matching…" }).click();
    await expect(page.getByText("2 deliveries match. Confirm?")).toBeVisible();
    await page.getByRole("button", { name: "Bury 2 deliveries" }).click();
    await expect(page.getByText("Buried 2 deliveries")).toBeVisible();
    await expect(page.getByText("No deliveries match.")).toBeVisible();

    await page.getByLabel("Status", { exact: true }).selectOption("dead");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page.getByTestId("delivery-row")).toHaveCount(2);
    for (const row of await page.getByTestId("delivery-row").all()) {
      await expect(row.locator("[data-status=dead]")).toHaveText("Buried");
      await expect(row.getByTestId("last-error")).toContainText("buried on request");
    }
  });

  await test.step("search finds deliveries by a word inside the body", async () => {
    await page.goto("/deliveries");
    await expect(page.getByTestId("delivery-row")).toHaveCount(3);
    await page.getByRole("searchbox", { name: "Search" }).fill("zebracorn");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/q=zebracorn/);
    await expect(page.getByTestId("delivery-row")).toHaveCount(1);
    await expect(page.locator(`[data-delivery-id="${deliveryId}"]`)).toContainText("Delivered");

    await page.getByRole("searchbox", { name: "Search" }).fill("walrus");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page.getByTestId("delivery-row")).toHaveCount(2);
    await expect(page.getByTestId("delivery-row").first()).toContainText("invoice.failed");
    // Bulk actions act on the search too (e2e/bulk-search.spec.ts).
    await expect(page.getByRole("button", { name: "Bury all matching…" })).toBeVisible();
    await page.screenshot({ path: path.join(ARTIFACTS, "deliveries.png"), fullPage: true });
  });
});
