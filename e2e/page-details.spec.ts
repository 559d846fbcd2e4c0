// The small things a new user meets first: each page names itself in the tab, the icon loads, an
// unknown page says so and offers the way back, `/` says what the product is to a signed-out visitor,
// a slow page shows that it is loading, and the benchmark's no-op route is not served.
import { expect, test } from "@playwright/test";
import postgres from "postgres";
import { e2eDatabaseUrl, signUp } from "./dashboard-helpers";

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

test("/ tells a signed-out visitor what Webhook Inbox does and leads to sign-up and sign-in; signed in, it opens the overview", async ({ page, request }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("We take custody of your webhooks.");
  await expect(page.getByRole("link", { name: "Sign in" })).toHaveAttribute("href", "/login");
  await page.getByRole("link", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/signup$/);

  // The benchmark's baseline route is off unless INBOX_BENCH=true (bench/ingest sets it).
  expect((await request.post("/api/noop", { data: "{}" })).status()).toBe(404);

  await signUp(page, "Landing Co");
  await page.goto("/");
  await expect(page).toHaveURL(/\/overview$/);
});

test("a page whose data is slow shows that it is loading", async ({ page }) => {
  await signUp(page, "Slow Pages Co");
  await page.goto("/overview");
  const sql = postgres(e2eDatabaseUrl(), { max: 1, onnotice: () => {} });
  try {
    // The API keys page waits on this lock (nothing else of the page and its layout reads api_keys).
    await sql.begin(async (tx) => {
      await tx`lock table api_keys in access exclusive mode`;
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API keys" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Loading…" })).toBeVisible();
    });
    await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: "Loading…" })).toHaveCount(0);
  } finally {
    await sql.end();
  }
});
