// Search and the event-type filter in the dashboard (issue #14 point 1), on the real product: a lowercase
// search finds a capitalised word in a body, and `invoice.*` filters by prefix while `invoice` stays exact.
import { expect, test } from "@playwright/test";
import { createEndpoint, receivedAtLeast, sendWebhook, signUp, startDestination, type TestDestination } from "./dashboard-helpers";

let destination: TestDestination;
test.beforeAll(async () => {
  destination = await startDestination(200);
});
test.afterAll(async () => {
  await destination?.close();
});

test("a lowercase search finds the capitalised body; invoice.* filters by prefix", async ({ page, request }) => {
  await signUp(page, "Search Party Ltd");
  const endpoint = await createEndpoint(page, "Shop", destination.url);
  const shipped = await sendWebhook(request, endpoint, { type: "invoice.paid", data: { note: "Shipped to Zanzibar" } });
  const other = await sendWebhook(request, endpoint, { type: "order.created", data: { note: "nothing to see" } });
  await receivedAtLeast(destination, 2);

  const search = async (q: string) => {
    await page.goto("/deliveries");
    await page.getByRole("searchbox", { name: "Search" }).fill(q);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(new RegExp(`q=${encodeURIComponent(q)}`));
  };
  for (const q of ["zanzibar", "ZANZIBAR", "INVOICE.PAID"]) {
    await test.step(`search ${q}`, async () => {
      await search(q);
      await expect(page.getByTestId("delivery-row")).toHaveCount(1);
      await expect(page.locator(`[data-delivery-id="${shipped}"]`)).toBeVisible();
    });
  }

  const filter = async (eventType: string) => {
    await page.goto("/deliveries");
    await page.getByLabel("Event type").fill(eventType);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/eventType=/);
  };
  await test.step("invoice.* matches by prefix", async () => {
    await filter("invoice.*");
    await expect(page.getByTestId("delivery-row")).toHaveCount(1);
    await expect(page.locator(`[data-delivery-id="${shipped}"]`)).toBeVisible();
    await filter("order*");
    await expect(page.getByTestId("delivery-row")).toHaveCount(1);
    await expect(page.locator(`[data-delivery-id="${other}"]`)).toBeVisible();
  });
  await test.step("without a trailing *, exactly", async () => {
    await filter("invoice");
    await expect(page.getByText("No deliveries match.")).toBeVisible();
  });
});
