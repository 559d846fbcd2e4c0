// Issue #14 point 3: a signed-out visit to a page of the dashboard (a delivery, the link in an alert
// mail) comes back to that page after signing in; only a path of this site is followed, never
// another site named in the sign-in link.
import { expect, test } from "@playwright/test";
import { createEndpoint, E2E_PASSWORD, sendWebhook, signUp } from "./dashboard-helpers";

test("a signed-out deep link returns there after sign-in; another site's address is refused", async ({ page, request }) => {
  const email = await signUp(page, "Deep Links Co");
  const endpoint = await createEndpoint(page, "Orders", "http://127.0.0.1:9/hook");
  const deliveryId = await sendWebhook(request, endpoint, { type: "order.created" });
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);

  const signIn = async () => {
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(E2E_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
  };
  const signOut = async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login/);
  };

  await test.step("a delivery's page", async () => {
    await page.goto(`/deliveries/${deliveryId}`);
    await expect(page).toHaveURL(/\/login\?callbackUrl=/);
    await signIn();
    await expect(page).toHaveURL(new RegExp(`/deliveries/${deliveryId}$`));
    await expect(page.getByRole("heading", { name: deliveryId })).toBeVisible();
    await signOut();
  });

  await test.step("the alert mail's link, query string and all; a wrong password first does not lose it", async () => {
    const mailLink = `/deliveries?endpointId=${endpoint.id}&status=pending`;
    await page.goto(mailLink);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.locator("form [role=alert]")).toHaveText("Wrong email or password.");
    await signIn();
    await expect(page).toHaveURL(new RegExp(`/deliveries\\?endpointId=${endpoint.id}&status=pending$`));
    await expect(page.getByLabel("Status", { exact: true })).toHaveValue("pending");
    await signOut();
  });

  for (const callbackUrl of ["https://evil.example/phish", "//evil.example/phish", "/\\evil.example/phish", "javascript:alert(1)"]) {
    await test.step(`refuses ${callbackUrl}`, async () => {
      await page.goto(`/login?callbackUrl=${encodeURIComponent(callbackUrl)}`);
      await signIn();
      await expect(page).toHaveURL(/^http:\/\/localhost:\d+\/overview$/);
      await signOut();
    });
  }
});
