import { expect, test } from "@playwright/test";

test("a newcomer signs up, creates an endpoint and sees its ingest URL", async ({ page, request }) => {
  const email = `e2e-${Date.now()}@example.test`;
  await page.goto("/endpoints");
  await expect(page).toHaveURL(/\/login/);

  await page.getByRole("link", { name: "Create an account" }).click();
  await page.getByLabel("Organization name").fill("E2E Corp");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page.locator("form [role=alert]")).toContainText("at least 10 characters");

  await page.getByLabel("Password").fill("a-long-e2e-password");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/overview$/);

  await page.getByRole("link", { name: "New endpoint" }).click();
  await page.getByLabel("Name").fill("Payments");
  await page.getByLabel("Destination URL").fill("http://127.0.0.1:9/hook");
  await page.getByRole("button", { name: "Create endpoint" }).click();

  const ingestUrl = page.getByTestId("ingest-url");
  await expect(ingestUrl).toHaveText(/\/in\/ep_[0-9a-z]{25}$/);
  await expect(page.getByTestId("endpoint-secret")).toHaveText(/^whsec_/);
  const url = (await ingestUrl.textContent())!;

  // The ingest URL is live: an unsigned request is refused with the contract's error.
  const refused = await request.post(url, { data: { hello: "world" } });
  expect(refused.status()).toBe(401);
  expect((await refused.json()).error.code).toBe("missing_signature");

  await page.getByRole("link", { name: "Endpoints" }).click();
  await expect(page.getByRole("link", { name: "Payments" })).toBeVisible();
  await expect(page.getByText(url)).toBeVisible();
});

test("a wrong password gets a clear error and a taken email is refused", async ({ page }) => {
  const email = `e2e-taken-${Date.now()}@example.test`;
  await page.goto("/signup");
  await page.getByLabel("Organization name").fill("Taken Inc");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a-long-e2e-password");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/overview$/);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);

  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("form [role=alert]")).toHaveText("Wrong email or password.");

  await page.goto("/signup");
  await page.getByLabel("Organization name").fill("Again");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a-long-e2e-password");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page.locator("form [role=alert]")).toContainText("already exists");
});
