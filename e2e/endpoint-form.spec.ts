// Issue #14 point 2: a refused form comes back as it was sent — the provider, the Generic HMAC
// settings and the secret typed included — with a sentence instead of an API field name, so
// submitting again creates the endpoint the person chose; providers are named as people know them.
import { expect, test } from "@playwright/test";
import { signUp } from "./dashboard-helpers";

test("after an error the form keeps every field, and the endpoint is created with them", async ({ page }) => {
  await signUp(page, "Form Keepers");
  await page.goto("/endpoints/new");
  const provider = page.getByLabel("Provider");
  await expect(provider.locator("option").first()).toHaveText("Standard Webhooks");
  await expect(provider.locator("option[value=generic-hmac]")).toHaveText("Generic HMAC");

  await test.step("GitHub with a bad destination: a sentence, the provider kept", async () => {
    await page.getByLabel("Name").fill("GitHub pushes");
    await provider.selectOption({ label: "GitHub" });
    await page.getByLabel("Destination URL").fill("ftp://127.0.0.1:9/hook");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect(page.locator("form [role=alert]")).toHaveText("Destination URL must use http or https.");
    await expect(provider).toHaveValue("github");
    await expect(page.getByLabel("Name")).toHaveValue("GitHub pushes");
    await expect(page.getByText(/Repository or organization Settings → Webhooks/)).toBeVisible();
  });

  await test.step("Generic HMAC with a bad destination: every field comes back, the secret too", async () => {
    await provider.selectOption("generic-hmac");
    await page.getByLabel("Shared secret").fill("an-hmac-secret");
    await page.getByLabel("Signature header").fill("x-hub-signature");
    await page.getByLabel("Algorithm").selectOption("sha1");
    await page.getByLabel("Encoding").selectOption("base64");
    await page.getByLabel("Signature prefix").fill("sha1=");
    await page.getByLabel("Event id header").fill("x-event-id");
    // The first answer's alert reads as this one will: wait for this answer to remount the form (its key is what
    // was sent), or the next step's typing lands in the old form and is replaced by what this one sent.
    const firstAlert = await page.locator("form [role=alert]").elementHandle();
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect.poll(() => firstAlert!.evaluate((alert) => alert.isConnected)).toBe(false);
    await expect(page.locator("form [role=alert]")).toHaveText("Destination URL must use http or https.");
    await expect(provider).toHaveValue("generic-hmac");
    await expect(page.getByLabel("Name")).toHaveValue("GitHub pushes");
    await expect(page.getByLabel("Destination URL")).toHaveValue("ftp://127.0.0.1:9/hook");
    await expect(page.getByLabel("Shared secret")).toHaveValue("an-hmac-secret");
    await expect(page.getByLabel("Signature header")).toHaveValue("x-hub-signature");
    await expect(page.getByLabel("Algorithm")).toHaveValue("sha1");
    await expect(page.getByLabel("Encoding")).toHaveValue("base64");
    await expect(page.getByLabel("Signature prefix")).toHaveValue("sha1=");
    await expect(page.getByLabel("Event id header")).toHaveValue("x-event-id");
  });

  await test.step("GitHub with its secret is created as GitHub, and named so on every page", async () => {
    await provider.selectOption("github");
    await page.getByLabel("Destination URL").fill("http://127.0.0.1:9/hook");
    await page.getByLabel("Webhook secret").fill("a-github-webhook-secret");
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
