// The endpoint settings page on the real product: refused requests explained, secret rotation with
// a grace period, pause/resume holding and releasing deliveries, delete after typing the name.
import path from "node:path";
import { expect, test } from "@playwright/test";
import { createEndpoint, receivedAtLeast, sendWebhook, signUp, startDestination } from "./dashboard-helpers";

test("settings: refused requests, secret rotation, pause/resume and delete", async ({ page, request }, testInfo) => {
  test.setTimeout(120_000);
  const destination = await startDestination(200);
  try {
    await signUp(page, "Settings Co");
    const endpoint = await createEndpoint(page, "Shop events", destination.url);
    await page.goto(`/endpoints/${endpoint.id}`);

    await test.step("an unsigned request shows up in the refused-requests log with a reason a person understands", async () => {
      const refused = await request.post(endpoint.ingestUrl, { data: '{"hello":"world"}', headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.9" } });
      expect(refused.status()).toBe(401);
      await expect.poll(async () => {
        await page.reload();
        return page.getByTestId("rejected-request").count();
      }).toBe(1);
      const row = page.getByTestId("rejected-request");
      await expect(row).toContainText("Unsigned request");
      await expect(row).toContainText("the webhook-signature header is missing");
      // The socket peer, not the client's own X-Forwarded-For: no proxy is trusted here.
      await expect(row).toContainText(/127\.0\.0\.1|::1/);
      await expect(row).not.toContainText("203.0.113.9");
      await expect(row).toContainText("content-type");
    });

    await test.step("rotating the secret shows the new one once; old and new both verify during the grace period", async () => {
      await page.getByRole("button", { name: "Rotate signing secret" }).click();
      await expect(page.getByText(/The previous secret keeps verifying until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/)).toBeVisible();
      const rotated = (await page.getByTestId("rotated-secret").textContent())!;
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(endpoint.secret);
      await sendWebhook(request, endpoint, { type: "old.secret" });
      await sendWebhook(request, { ingestUrl: endpoint.ingestUrl, secret: rotated }, { type: "new.secret" });
      await receivedAtLeast(destination, 2);
      await page.reload();
      await expect(page.getByTestId("rotated-secret")).toHaveCount(0);
      await expect(page.getByText(/The previous signing secret still verifies until/)).toBeVisible();
    });

    await test.step("paused, it stores but holds deliveries; resumed, it delivers them", async () => {
      await page.getByRole("button", { name: "Pause deliveries" }).click();
      await expect(page.getByTestId("endpoint-state")).toHaveText("Paused");
      const held = await sendWebhook(request, endpoint, { type: "while.paused" });
      await page.waitForTimeout(1500);
      expect(destination.requests).toHaveLength(2);
      await page.goto(`/deliveries/${held}`);
      await expect(page.getByTestId("delivery-status")).toHaveText("Pending");
      await page.goto(`/endpoints/${endpoint.id}`);
      await page.getByRole("button", { name: "Resume deliveries" }).click();
      await expect(page.getByTestId("endpoint-state")).toHaveText("Active");
      await receivedAtLeast(destination, 3);
      expect(JSON.parse(destination.requests[2]!.body)).toEqual({ type: "while.paused" });
    });

    await test.step("settings refuse bad values with a message and keep what was typed", async () => {
      await page.getByLabel("Destination URL").fill("ftp://example.com/hook");
      await page.getByRole("button", { name: "Save settings" }).click();
      await expect(page.locator("form [role=alert]")).toContainText("http or https");
      await expect(page.getByLabel("Destination URL")).toHaveValue("ftp://example.com/hook");
      await page.screenshot({ path: path.join(testInfo.project.testDir, "artifacts", "endpoint-settings.png"), fullPage: true });
    });

    await test.step("delete only after typing the name; the ingest URL then answers 404", async () => {
      const remove = page.getByRole("button", { name: "Delete endpoint" });
      await expect(remove).toBeDisabled();
      await page.getByLabel("Type “Shop events” to confirm").fill("Shop");
      await expect(remove).toBeDisabled();
      await page.getByLabel("Type “Shop events” to confirm").fill("Shop events");
      await remove.click();
      await expect(page).toHaveURL(/\/endpoints$/);
      await expect(page.getByRole("link", { name: "Shop events" })).toHaveCount(0);
      expect((await request.post(endpoint.ingestUrl, { data: "{}" })).status()).toBe(404);
    });
  } finally {
    await destination.close();
  }
});
