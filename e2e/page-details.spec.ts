// The small things a new user meets first: each page names itself in the tab, the icon loads, and an
// unknown page says so and offers the way back.
import { expect, test } from "@playwright/test";

test("pages have their own titles, the icon loads, and a 404 leads back", async ({ page, request }) => {
  await page.goto("/login");
  await expect(page).toHaveTitle("Sign in · Webhook Inbox");
  await page.goto("/signup");
  await expect(page).toHaveTitle("Sign up · Webhook Inbox");

  const icon = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(icon).toBeTruthy();
  expect((await request.get(icon!)).status()).toBe(200);

  const missing = await page.goto("/no-such-page");
  expect(missing?.status()).toBe(404);
  await expect(page).toHaveTitle("Not found · Webhook Inbox");
  await expect(page.getByRole("link", { name: "Back to the overview" })).toHaveAttribute("href", "/overview");
});
