import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";

test("the account page changes the password: a wrong current one is refused, the new one signs in", async ({ page }) => {
  const email = `e2e-account-${randomBytes(5).toString("hex")}@example.test`;
  await page.goto("/signup");
  await page.getByLabel("Organization name").fill("Account Co");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a-long-e2e-password");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/overview$/);

  await page.getByRole("link", { name: "Account" }).click();
  await expect(page).toHaveURL(/\/account$/);
  await page.getByLabel("Current password").fill("not-the-password");
  await page.getByLabel("New password").fill("a-newer-e2e-password");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.locator("form [role=alert]")).toHaveText("The current password is wrong.");

  await page.getByLabel("Current password").fill("a-long-e2e-password");
  await page.getByLabel("New password").fill("a-newer-e2e-password");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("status")).toContainText("Password changed");
  // This session stays signed in.
  await page.goto("/api-keys");
  await expect(page).toHaveURL(/\/api-keys$/);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a-long-e2e-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("form [role=alert]")).toHaveText("Wrong email or password.");
  await page.getByLabel("Password").fill("a-newer-e2e-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/overview$/);
});
