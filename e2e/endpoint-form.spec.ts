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
  await expect(page.getByText(/Repository or organization Settings → Webhooks/)).toBeVisible();

  await page.getByLabel("Webhook secret").fill("a-github-webhook-secret");
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await page.getByRole("link", { name: "Open the endpoint" }).click();
  await expect(page.getByText("Provider:").locator("..")).toContainText("github");
});

// Issue #16: each provider's name in the list, and what to paste where under the secret field.
test("the form names each provider and says where its secret is, with a verify token for Meta", async ({ page }) => {
  await signUp(page, "Provider Guides");
  await page.goto("/endpoints/new");
  const provider = page.locator("select[name=provider]");
  await expect(provider.locator("option")).toHaveCount(30);
  await expect(provider.locator("option[value=lemonsqueezy]")).toHaveText("Lemon Squeezy");

  await provider.selectOption("discord");
  await expect(page.getByLabel("Public key")).toBeVisible();
  await expect(page.getByText(/General Information → Public Key/)).toBeVisible();
  await expect(page.getByLabel("Verify token")).toHaveCount(0);

  await provider.selectOption("meta");
  await expect(page.getByLabel("App secret")).toBeVisible();
  await page.getByLabel("Name").fill("Meta pages");
  await page.getByLabel("Destination URL").fill("http://127.0.0.1:9/hook");
  await page.getByLabel("App secret").fill("a-meta-app-secret");
  await page.getByLabel("Verify token").fill("meatpacking-district");
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.getByTestId("ingest-url")).toBeVisible();
});
