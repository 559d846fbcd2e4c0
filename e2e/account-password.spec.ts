import { expect, test } from "@playwright/test";
import { E2E_PASSWORD, signUp } from "./dashboard-helpers";

test("the account page changes the password: a wrong current one is refused, the new one signs in", async ({ page }) => {
  const email = await signUp(page, "Account Co");

  await page.getByRole("link", { name: "Account", exact: true }).click();
  await expect(page).toHaveURL(/\/account$/);
  await page.getByLabel("Current password").fill("not-the-password");
  await page.getByLabel("New password").fill("a-newer-e2e-password");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.locator("form [role=alert]")).toHaveText("The current password is wrong.");

  await page.getByLabel("Current password").fill(E2E_PASSWORD);
  await page.getByLabel("New password").fill("a-newer-e2e-password");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("status")).toContainText("Password changed");
  // This session stays signed in.
  await page.goto("/api-keys");
  await expect(page).toHaveURL(/\/api-keys$/);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(E2E_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("form [role=alert]")).toHaveText("Wrong email or password.");
  await page.getByLabel("Password").fill("a-newer-e2e-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/overview$/);
});

test("after sign-out in one tab, a form left open in another is refused and sent to /login", async ({ context }) => {
  const open = await context.newPage();
  const email = await signUp(open, "Two Tabs Co");
  await open.goto("/api-keys");
  const saved = await context.cookies();

  const other = await context.newPage();
  await other.goto("/overview");
  await other.getByRole("button", { name: "Sign out" }).click();
  await expect(other).toHaveURL(/\/login/);

  // The server action behind the form left open: the session is gone on the server, so it is refused.
  await context.addCookies(saved); // even with the old cookie put back
  await open.getByLabel("Key name").fill("after sign-out");
  await open.getByRole("button", { name: "Create key" }).click();
  await expect(open).toHaveURL(/\/login/);
  await open.goto("/api-keys");
  await expect(open).toHaveURL(/\/login/);

  // Signed in again (back on the page asked for): no key was made by the refused action.
  await open.getByLabel("Email").fill(email);
  await open.getByLabel("Password").fill(E2E_PASSWORD);
  await open.getByRole("button", { name: "Sign in" }).click();
  await expect(open).toHaveURL(/\/api-keys$/);
  await open.goto("/api-keys");
  await expect(open.getByText("after sign-out")).toHaveCount(0);
  // (whereas the same form with a live session makes one, listed by name)
  await open.getByLabel("Key name").fill("signed in again");
  await open.getByRole("button", { name: "Create key" }).click();
  await expect(open.getByRole("cell", { name: "signed in again", exact: true })).toBeVisible();
});
