// Issue #14 point 2: a refused New endpoint form comes back as it was sent — the provider included —
// so submitting again creates the endpoint the person chose, not one with another signature scheme.
import { expect, test } from "@playwright/test";
import { signUp } from "./dashboard-helpers";

test("after an error the form keeps the chosen provider, and the endpoint is created with it", async ({ page }) => {
  await signUp(page, "Form Keepers");
  await page.goto("/endpoints/new");
  await page.getByLabel("Name").fill("GitHub pushes");
  await page.locator("select[name=provider]").selectOption("github");
  await page.getByLabel("Destination URL").fill("http://127.0.0.1:9/hook");
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.locator("form [role=alert]")).toContainText("github");

  await expect(page.locator("select[name=provider]")).toHaveValue("github");
  await expect(page.getByLabel("Name")).toHaveValue("GitHub pushes");
  await expect(page.getByText("The secret your provider shows you.")).toBeVisible();

  await page.getByLabel("Signing secret").fill("a-github-webhook-secret");
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await page.getByRole("link", { name: "Open the endpoint" }).click();
  await expect(page.getByText("Provider:").locator("..")).toContainText("github");
});
