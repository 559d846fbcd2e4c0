// Issue #14 point 4: revoking an API key asks first; the "copy it now" banner never shows a key that
// was revoked; revoked keys stay listed, marked revoked, and stop working.
import { expect, test } from "@playwright/test";
import { signUp } from "./dashboard-helpers";

test("revoking asks first, clears the new key's banner, and shows the key as revoked", async ({ page, request }) => {
  await signUp(page, "Key Keepers");
  await page.goto("/api-keys");
  await page.getByLabel("Key name").fill("CI deploys");
  await page.getByRole("button", { name: "Create key" }).click();
  const banner = page.getByRole("status").filter({ hasText: "Copy it now" });
  await expect(banner).toBeVisible();
  const apiKey = (await page.getByTestId("new-api-key").textContent())!;
  expect((await request.get("/api/v1/endpoints", { headers: { authorization: `Bearer ${apiKey}` } })).status()).toBe(200);

  const row = page.getByRole("row", { name: /CI deploys/ });
  await test.step("the first click only asks; Cancel leaves the key alone", async () => {
    await row.getByRole("button", { name: "Revoke CI deploys" }).click();
    await expect(page.getByText("Revoke “CI deploys”? Anything using it is refused from then on.")).toBeVisible();
    await page.getByRole("button", { name: "Cancel" }).click();
    await expect(row.getByRole("button", { name: "Revoke CI deploys" })).toBeVisible();
    await expect(row).not.toContainText("Revoked");
    expect((await request.get("/api/v1/endpoints", { headers: { authorization: `Bearer ${apiKey}` } })).status()).toBe(200);
  });

  await test.step("confirmed, the key is revoked, shown so, and its banner is gone", async () => {
    await row.getByRole("button", { name: "Revoke CI deploys" }).click();
    await page.getByRole("button", { name: "Yes, revoke CI deploys" }).click();
    await expect(row).toContainText("Revoked");
    await expect(row.getByRole("button", { name: "Revoke CI deploys" })).toHaveCount(0);
    await expect(banner).toHaveCount(0);
    await expect(page.getByTestId("new-api-key")).toHaveCount(0);
    expect((await request.get("/api/v1/endpoints", { headers: { authorization: `Bearer ${apiKey}` } })).status()).toBe(401);
    await page.reload();
    await expect(page.getByRole("row", { name: /CI deploys/ })).toContainText("Revoked");
  });
});
