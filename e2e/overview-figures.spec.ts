// Issue #14 point 6: the overview's figures are each defined once and labelled. The success rate is
// delivered ÷ settled (delivered + dead) of the last 24 h, so replaying a delivered delivery does not
// lower it (it counted as failed before); dead deliveries do; refused requests (401) are counted per endpoint.
import { expect, test } from "@playwright/test";
import { createEndpoint, receivedAtLeast, sendWebhook, signUp, startDestination } from "./dashboard-helpers";

test("the success rate counts settled deliveries only: a replay does not lower it, dead does; refused are counted", async ({ page, request }) => {
  test.setTimeout(90_000);
  const destination = await startDestination(200);
  try {
    await signUp(page, "Figures Co");
    const endpoint = await createEndpoint(page, "Billing", destination.url);
    const delivered = await sendWebhook(request, endpoint, { type: "a" });
    await sendWebhook(request, endpoint, { type: "b" });
    await receivedAtLeast(destination, 2);
    const row = page.getByTestId(`overview-${endpoint.id}`);

    await test.step("two delivered: 100 %, and the definition is on the page", async () => {
      await expect.poll(async () => {
        await page.goto("/overview");
        return row.getByTestId("success-rate").textContent();
      }).toBe("100 %");
      await expect(page.getByText("delivered ÷ settled (delivered + dead)")).toBeVisible();
    });

    await test.step("one of them replayed (endpoint paused, so it waits): still 100 %, nothing shown failing", async () => {
      await page.goto(`/endpoints/${endpoint.id}`);
      await page.getByRole("button", { name: "Pause deliveries" }).click();
      await expect(page.getByTestId("endpoint-state")).toHaveText("Paused");
      await page.goto(`/deliveries/${delivered}`);
      await page.getByRole("button", { name: "Replay" }).click();
      await expect(page.getByTestId("delivery-status")).toHaveText("Pending");
      await page.goto("/overview");
      await expect(row.getByTestId("pending-count")).toHaveText("1");
      await expect(row.getByTestId("success-rate")).toHaveText("100 %");
      await expect(row.getByTestId("dead-count")).toHaveText("0");
      await expect(row.getByRole("img", { name: /2 received, 1 delivered, 0 dead, 0 retrying/ })).toBeVisible();
    });

    await test.step("resumed, the replay is delivered; then one dead (410): 66.7 %, and Dead (24 h) says 1", async () => {
      await page.goto(`/endpoints/${endpoint.id}`);
      await page.getByRole("button", { name: "Resume deliveries" }).click();
      await receivedAtLeast(destination, 3);
      destination.answer(410);
      await sendWebhook(request, endpoint, { type: "c" });
      await receivedAtLeast(destination, 4);
      await expect.poll(async () => {
        await page.goto("/overview");
        return row.getByTestId("dead-count").textContent();
      }).toBe("1");
      await expect(row.getByTestId("success-rate")).toHaveText("66.7 %");
    });

    await test.step("an unsigned request is counted as refused for its endpoint", async () => {
      expect((await request.post(endpoint.ingestUrl, { data: "{}" })).status()).toBe(401);
      await expect.poll(async () => {
        await page.goto("/overview");
        return row.getByTestId("refused-count").textContent();
      }).toBe("1");
    });
  } finally {
    await destination.close();
  }
});
