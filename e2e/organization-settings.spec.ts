// The organization settings page: its id to copy for the CLI, and the retention saved or refused.
import { expect, test } from "@playwright/test";
import { signUp } from "./dashboard-helpers";

test("settings: the organization id is copyable, retention is saved, and 0 is refused with a message", async ({ page, context }) => {
  await signUp(page, "Retention Co");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page).toHaveTitle("Settings · Webhook Inbox");

  const id = (await page.getByTestId("organization-id").textContent())!;
  expect(id).toMatch(/^org_[0-9a-z]{25}$/);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.getByRole("button", { name: `Copy: ${id}` }).click();
  await expect(page.getByRole("button", { name: `Copy: ${id}` })).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(id);

  const retention = page.getByLabel("Retention (days)");
  await expect(retention).toHaveValue("30");
  await retention.fill("7");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("status")).toHaveText("Settings saved.");
  await page.reload();
  await expect(page.getByLabel("Retention (days)")).toHaveValue("7");

  await page.getByLabel("Organization name").fill("Retention Company");
  await page.getByLabel("Retention (days)").fill("0");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.locator("form [role=alert]")).toHaveText("retentionDays must be a whole number of days from 1 to 365");
  // What was typed stays, and nothing was saved.
  await expect(page.getByLabel("Retention (days)")).toHaveValue("0");
  await expect(page.getByLabel("Organization name")).toHaveValue("Retention Company");
  await page.reload();
  await expect(page.getByLabel("Retention (days)")).toHaveValue("7");
  await expect(page.getByLabel("Organization name")).toHaveValue("Retention Co");
});
