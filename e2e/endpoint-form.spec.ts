// Issue #14 point 2: a refused form comes back as it was sent — the provider, the Generic HMAC
// settings and the secret typed included — with a sentence instead of an API field name, so
// submitting again creates the endpoint the person chose; providers are named as people know them.
import { expect, test } from "@playwright/test";
import { signUp } from "./dashboard-helpers";

test("after an error the form keeps every field, and the endpoint is created with them", async ({ page }) => {
  await signUp(page, "Form Keepers");
  await page.goto("/endpoints/new");
  const provider = page.getByLabel("Provider");
  await expect(provider.locator("option")).toHaveText(["Standard Webhooks", "Svix", "Stripe", "GitHub", "Shopify", "Slack", "Generic HMAC", "None (no verification)"]);

  await test.step("GitHub without a secret: a sentence naming GitHub, the provider kept", async () => {
    await page.getByLabel("Name").fill("GitHub pushes");
    await provider.selectOption({ label: "GitHub" });
    await page.getByLabel("Destination URL").fill("http://127.0.0.1:9/hook");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect(page.locator("form [role=alert]")).toHaveText("GitHub endpoints need the signing secret GitHub shows you in its webhook settings.");
    await expect(provider).toHaveValue("github");
    await expect(page.getByLabel("Name")).toHaveValue("GitHub pushes");
    await expect(page.getByText("The secret GitHub shows you.")).toBeVisible();
  });

  await test.step("Generic HMAC with a bad destination: every field comes back, the secret too", async () => {
    await provider.selectOption("generic-hmac");
    await page.getByLabel("Destination URL").fill("ftp://127.0.0.1:9/hook");
    await page.getByLabel("Signing secret").fill("an-hmac-secret");
    await page.getByLabel("Signature header").fill("x-hub-signature");
    await page.getByLabel("Algorithm").selectOption("sha1");
    await page.getByLabel("Encoding").selectOption("base64");
    await page.getByLabel("Signature prefix").fill("sha1=");
    await page.getByLabel("Event id header").fill("x-event-id");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect(page.locator("form [role=alert]")).toHaveText("Destination URL must use http or https.");
    await expect(provider).toHaveValue("generic-hmac");
    await expect(page.getByLabel("Name")).toHaveValue("GitHub pushes");
    await expect(page.getByLabel("Destination URL")).toHaveValue("ftp://127.0.0.1:9/hook");
    await expect(page.getByLabel("Signing secret")).toHaveValue("an-hmac-secret");
    await expect(page.getByLabel("Signature header")).toHaveValue("x-hub-signature");
    await expect(page.getByLabel("Algorithm")).toHaveValue("sha1");
    await expect(page.getByLabel("Encoding")).toHaveValue("base64");
    await expect(page.getByLabel("Signature prefix")).toHaveValue("sha1=");
    await expect(page.getByLabel("Event id header")).toHaveValue("x-event-id");
  });

  await test.step("GitHub with its secret is created as GitHub, and named so on every page", async () => {
    await provider.selectOption("github");
    await page.getByLabel("Destination URL").fill("http://127.0.0.1:9/hook");
    await page.getByLabel("Signing secret").fill("a-github-webhook-secret");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await page.getByRole("link", { name: "Open the endpoint" }).click();
    await expect(page.getByTestId("provider")).toHaveText("GitHub");
    await expect(page.getByLabel("New secret from GitHub")).toBeVisible();
    await page.goto("/endpoints");
    await expect(page.getByTestId("provider")).toHaveText("GitHub");
    await page.goto("/overview");
    await expect(page.getByTestId("provider")).toHaveText("GitHub");
  });
});
