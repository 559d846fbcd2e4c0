// Issue #14 points 5 and 11: a failing delivery explains where it stands ("attempt 3 of 8", when the
// next one is, the rest of the schedule); the replay banner goes once the delivery moves on; Bury is
// offered only where it can act, disabled buttons look disabled, and a bulk bury leaves delivered
// deliveries alone; the outbound signing secret is set in the settings form and never shown back.
import { expect, test, type Locator } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { createEndpoint, receivedAtLeast, sendWebhook, signUp, startDestination, type TestDestination } from "./dashboard-helpers";

let destination: TestDestination;
test.beforeAll(async () => {
  destination = await startDestination(500);
});
test.afterAll(async () => {
  await destination?.close();
});

async function looksDisabled(button: Locator) {
  await expect(button).toBeDisabled();
  await expect(button).toHaveCSS("opacity", "0.5");
  await expect(button).toHaveCSS("cursor", "not-allowed");
}

test("a failing delivery explains its schedule; replay, bury and bulk bury offer only what they can do", async ({ page, request }) => {
  test.setTimeout(120_000);
  await signUp(page, "Retry Explainers");
  const endpoint = await createEndpoint(page, "Invoices", destination.url);
  await page.goto(`/endpoints/${endpoint.id}`);
  await page.getByLabel("Retry base (seconds)").fill("1");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Settings saved.")).toBeVisible();

  const failing = await sendWebhook(request, endpoint, { type: "invoice.paid" });
  await test.step("attempt 3 of 8 failed: when the next is, and the rest of the schedule", async () => {
    await page.goto(`/deliveries/${failing}`);
    const plan = page.getByTestId("retry-plan");
    await expect(plan).toContainText("Attempt 3 of 8 failed", { timeout: 30_000 });
    await expect(plan).toContainText(/Next: attempt 4 of 8, in about \d+ s/);
    const later = plan.getByRole("listitem");
    await expect(later).toHaveCount(4);
    await expect(later.nth(0)).toHaveText("attempt 5 about 1 min 4 s after the one before");
    await expect(later.nth(3)).toHaveText("attempt 8 about 1 h after the one before");
    await expect(plan).toContainText("If attempt 8 fails too, the delivery goes dead");
  });

  await test.step("the destination recovers: the replay banner shows, then goes once the delivery is delivered", async () => {
    // Slow enough that the outcome is shown before the delivery is delivered (a fast one can beat it).
    destination.answer(200, 3_000);
    await page.getByRole("button", { name: "Replay" }).click();
    const banner = page.getByRole("status").filter({ hasText: "Replay queued" });
    await expect(banner).toBeVisible();
    await expect(page.getByTestId("delivery-status")).toHaveText("Delivered");
    await expect(banner).toHaveCount(0);
    await expect(page.getByTestId("retry-plan")).toHaveCount(0);
    // Delivered: nothing to bury.
    await expect(page.getByRole("button", { name: "Bury" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Replay" })).toBeEnabled();
  });

  await test.step("a dead delivery's Bury is disabled and looks it", async () => {
    destination.answer(410);
    const gone = await sendWebhook(request, endpoint, { type: "invoice.voided" });
    await page.goto(`/deliveries/${gone}`);
    await expect(page.getByTestId("delivery-status")).toHaveText("Dead");
    await looksDisabled(page.getByRole("button", { name: "Bury" }));
  });

  await test.step("bulk bury over every status leaves the delivered one alone", async () => {
    await page.goto(`/endpoints/${endpoint.id}`);
    await page.getByRole("button", { name: "Pause deliveries" }).click();
    await expect(page.getByTestId("endpoint-state")).toHaveText("Paused");
    await sendWebhook(request, endpoint, { type: "invoice.held" });
    await page.goto(`/deliveries?endpointId=${endpoint.id}`);
    await expect(page.getByTestId("delivery-row")).toHaveCount(3);
    await page.getByRole("button", { name: "Bury all matching…" }).click();
    await expect(page.getByText("1 delivery matches. Confirm?")).toBeVisible();
    await page.getByRole("button", { name: "Bury 1 delivery" }).click();
    await expect(page.getByText("Buried 1 delivery")).toBeVisible();
    await expect(page.locator(`[data-delivery-id="${failing}"]`)).toContainText("Delivered");
  });

  await test.step("Delete looks disabled until the name is typed", async () => {
    await page.goto(`/endpoints/${endpoint.id}`);
    await looksDisabled(page.getByRole("button", { name: "Delete endpoint" }));
    await page.getByLabel("Type “Invoices” to confirm").fill("Invoices");
    await expect(page.getByRole("button", { name: "Delete endpoint" })).toHaveCSS("opacity", "1");
  });
});

test("the outbound signing secret is set from the settings form, signs what goes out, and is never shown back", async ({ page, request }) => {
  await signUp(page, "Outbound Signers");
  destination.answer(200);
  const endpoint = await createEndpoint(page, "Signed out", destination.url);
  await page.goto(`/endpoints/${endpoint.id}`);
  const outbound = `whsec_${Buffer.from("an outbound secret of 32 bytes!!").toString("base64")}`;
  await expect(page.getByText("Outbound requests are not signed.")).toBeVisible();
  await page.getByLabel("Outbound signing secret").fill(outbound);
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Settings saved.")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Outbound signing secret")).toHaveValue("");
  await expect(page.getByText("Outbound requests are signed (Standard Webhooks).")).toBeVisible();
  expect(await page.content()).not.toContain(outbound);

  const before = destination.requests.length;
  await sendWebhook(request, endpoint, { type: "signed.out" });
  await receivedAtLeast(destination, before + 1);
  const received = destination.requests.at(-1)!;
  const headers = Object.fromEntries(Object.entries(received.headers).map(([name, value]) => [name, String(value)]));
  expect(() => new Webhook(outbound).verify(received.body, headers)).not.toThrow();
});
