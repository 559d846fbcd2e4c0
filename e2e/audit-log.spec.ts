// The Audit log page: changes made in the dashboard show up with who made them and what changed (a
// secret only as "changed"), and the action, actor and time filters narrow the list.
import { expect, test } from "@playwright/test";
import { createEndpoint, signUp } from "./dashboard-helpers";

test("the audit log lists dashboard changes, and its filters by action, actor and time work", async ({ page }) => {
  const email = await signUp(page, "Audited Co");
  const endpoint = await createEndpoint(page, "Orders", "http://127.0.0.1:9/hook");
  await page.goto("/settings");
  await page.getByLabel("Organization name").fill("Audited Company");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("status")).toHaveText("Settings saved.");
  await page.goto("/api-keys");
  await page.getByLabel("Key name").fill("Deploy bot");
  await page.getByRole("button", { name: "Create key" }).click();
  const apiKey = (await page.getByTestId("new-api-key").textContent())!;

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log" }).click();
  await expect(page).toHaveURL(/\/audit-log$/);
  await expect(page).toHaveTitle("Audit log · Webhook Inbox");
  const rows = page.getByTestId("audit-row");
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toHaveAttribute("data-action", "api_key.created");
  await expect(rows.nth(1)).toHaveAttribute("data-action", "organization.updated");
  await expect(rows.nth(2)).toHaveAttribute("data-action", "endpoint.created");
  for (const row of await rows.all()) await expect(row.getByTestId("audit-actor")).toContainText(email);
  await expect(rows.nth(1).getByTestId("audit-details")).toHaveText("name → “Audited Company”");
  await expect(rows.nth(2).getByRole("link", { name: endpoint.id })).toBeVisible();
  // Neither the key nor the endpoint's secret is anywhere on the page.
  const text = await page.locator("main").innerText();
  expect(text).not.toContain(apiKey);
  expect(text).not.toContain(endpoint.secret);

  await test.step("by action", async () => {
    await page.getByLabel("Action").selectOption("organization.updated");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/action=organization\.updated/);
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute("data-action", "organization.updated");
  });

  await test.step("by actor: the system made none of them; the member all", async () => {
    await page.getByLabel("Action").selectOption("");
    await page.getByLabel("Actor").selectOption("system");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page.getByText("No entries match.")).toBeVisible();
    await page.getByLabel("Actor").selectOption({ label: `Member ${email}` });
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/actor=user%3Ausr_/);
    await expect(rows).toHaveCount(3);
  });

  await test.step("by time: nothing before 2020, everything since", async () => {
    await page.getByLabel("Until (UTC)").fill("2020-01-01T00:00:00");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page.getByText("No entries match.")).toBeVisible();
    await page.getByLabel("Until (UTC)").fill("");
    await page.getByLabel("From (UTC)").fill("2020-01-01T00:00:00");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(rows).toHaveCount(3);
  });
});
