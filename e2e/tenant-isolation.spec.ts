// Another organization's delivery is not there at all: its page answers 404 and no list shows it.
import { expect, test } from "@playwright/test";
import { createEndpoint, receivedAtLeast, sendWebhook, signUp, startDestination } from "./dashboard-helpers";

test("another organization's delivery page answers 404", async ({ browser, page, request }) => {
  const destination = await startDestination(200);
  try {
    await signUp(page, "Owner Org");
    const endpoint = await createEndpoint(page, "Orders", destination.url);
    const deliveryId = await sendWebhook(request, endpoint, { type: "order.created", data: { secretive: "owner-only-payload" } });
    await receivedAtLeast(destination, 1);

    const own = await page.goto(`/deliveries/${deliveryId}`);
    expect(own?.status()).toBe(200);
    await expect(page.getByTestId("delivery-body")).toContainText("owner-only-payload");

    const strangerContext = await browser.newContext({ baseURL: new URL(page.url()).origin });
    try {
      const stranger = await strangerContext.newPage();
      await signUp(stranger, "Stranger Org");
      const theirs = await stranger.goto(`/deliveries/${deliveryId}`);
      expect(theirs?.status()).toBe(404);
      await expect(stranger.getByText("owner-only-payload")).toHaveCount(0);
      await expect(stranger.getByText(/could not be found|404/).first()).toBeVisible();

      await stranger.goto("/deliveries");
      await expect(stranger.getByText("No deliveries match.")).toBeVisible();
      const settings = await stranger.goto(`/endpoints/${endpoint.id}`);
      expect(settings?.status()).toBe(404);
    } finally {
      await strangerContext.close();
    }
  } finally {
    await destination.close();
  }
});
