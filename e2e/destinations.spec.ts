// Issue #43 item 4 in Chromium: an endpoint's destinations on its page. A second destination is added with a filter
// whose preview first names the path of an error, then which of the stored requests it matches; a webhook sent then
// goes to both, the delivery's page shows a row per destination, and one destination alone is replayed. The
// deliveries list filters by destination. A viewer sees the destinations and no control that changes them. The
// states every-page.spec.ts does not reach (the form open with a preview, a delivery to two destinations) pass axe.
import { randomBytes } from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { createEndpoint, E2E_PASSWORD, receivedAtLeast, sendWebhook, signUp, startDestination, type TestDestination } from "./dashboard-helpers";
import { invitationLinkMailedTo } from "./mail-helpers";

const CHANGE_BUTTONS = /replay|bury|delete|pause|resume|save|edit|new destination|preview/i;
const INVOICES = '{"body": {"type": {"$startsWith": "invoice."}}}';

let primary: TestDestination;
let billing: TestDestination;
test.beforeAll(async () => {
  primary = await startDestination(200);
  billing = await startDestination(500);
});
test.afterAll(async () => {
  await primary?.close();
  await billing?.close();
});

async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}

test("a filtered second destination: previewed, added, delivered to, replayed alone; a viewer only looks", async ({ page, browser, request }) => {
  test.setTimeout(180_000);
  await signUp(page, "Fan Out Co");
  const endpoint = await createEndpoint(page, "Shop", primary.url);
  const older = {
    paid: await sendWebhook(request, endpoint, { type: "invoice.paid", amount: 1200 }),
    customer: await sendWebhook(request, endpoint, { type: "customer.created" }),
    voided: await sendWebhook(request, endpoint, { type: "invoice.voided", amount: 50 }),
  };
  await receivedAtLeast(primary, 3);

  await page.goto(`/endpoints/${endpoint.id}`);
  const list = page.getByRole("list", { name: "Destinations" });
  const item = (name: string) => list.getByTestId("destination").filter({ has: page.getByTestId("destination-name").getByText(name, { exact: true }) });
  await expect(list.getByTestId("destination")).toHaveCount(1);
  await expect(item("Default").getByTestId("destination-default")).toHaveText("Default");
  await expect(item("Default").getByTestId("destination-url")).toHaveText(primary.url);
  await expect(item("Default").getByTestId("destination-filter")).toHaveText("Every request");
  await expect(item("Default").getByRole("button", { name: /^Delete/ })).toHaveCount(0); // the default one stays

  await test.step("the preview names an invalid filter's path, then which stored requests a valid one matches", async () => {
    await page.getByRole("button", { name: "New destination…" }).click();
    const form = page.getByRole("form", { name: "New destination" });
    await form.getByLabel("Destination name").fill("Billing");
    await form.getByLabel("URL").fill(billing.url);
    await form.getByLabel("Filter (JSON)").fill('{"body": {"amount": {"$gte": true}}}');
    await form.getByRole("button", { name: "Preview matches" }).click();
    await expect(form.getByRole("alert")).toContainText("filter.body.amount.$gte");

    await form.getByLabel("Filter (JSON)").fill(INVOICES);
    await expect(form.getByRole("alert")).toHaveCount(0); // what was shown was for another filter
    await form.getByRole("button", { name: "Preview matches" }).click();
    const preview = form.getByTestId("filter-preview");
    await expect(preview.getByTestId("filter-preview-count")).toHaveText("2 of the newest 3 requests match.");
    const matches = preview.getByTestId("filter-preview-match");
    await expect(matches).toHaveCount(2);
    // Newest first, each a link to its delivery; no body is sent to the page.
    await expect(matches.nth(0)).toHaveAttribute("data-delivery-id", older.voided);
    await expect(matches.nth(1)).toHaveAttribute("data-delivery-id", older.paid);
    await expect(matches.nth(1).getByRole("link", { name: "invoice.paid" })).toHaveAttribute("href", `/deliveries/${older.paid}`);
    await expect(preview).not.toContainText("1200");
    expect(await seriousViolations(page), "the endpoint page with the form and a preview").toEqual([]);

    await form.getByLabel("Retry base (seconds)").fill("3600"); // its retries wait: a replay is what delivers
    await form.getByRole("button", { name: "Add destination" }).click();
    await expect(form.getByRole("status").filter({ hasText: "Destination added." })).toBeVisible();
    await expect(form.getByTestId("filter-preview")).toHaveCount(0);
    await form.getByRole("button", { name: "Close" }).click();
  });

  await test.step("the list shows it; pause, resume and edit it", async () => {
    const billingItem = item("Billing");
    await expect(billingItem.getByTestId("destination-filter")).toHaveText('{"body":{"type":{"$startsWith":"invoice."}}}');
    await expect(billingItem.getByTestId("destination-url")).toHaveText(billing.url);
    await expect(billingItem.getByTestId("destination-default")).toHaveCount(0);
    await billingItem.getByRole("button", { name: "Pause Billing" }).click();
    await expect(billingItem.getByTestId("destination-state")).toHaveText("Paused");
    await expect(item("Default").getByTestId("destination-state")).toHaveText("Active");
    await billingItem.getByRole("button", { name: "Resume Billing" }).click();
    await expect(billingItem.getByTestId("destination-state")).toHaveText("Active");

    await billingItem.getByRole("button", { name: "Edit Billing" }).click();
    const edit = page.getByRole("form", { name: "Edit destination Billing" });
    await expect(edit.getByLabel("Filter (JSON)")).toHaveValue(JSON.stringify(JSON.parse(INVOICES), null, 2));
    await edit.getByLabel("Max attempts").fill("5");
    await edit.getByRole("button", { name: "Save destination" }).click();
    await expect(edit.getByRole("status").filter({ hasText: "Destination saved." })).toBeVisible();
    await expect(billingItem).toContainText("Up to 5 attempts, retry base 3600 s");
    await edit.getByRole("button", { name: "Close" }).click();
  });

  const invoice = await sendWebhook(request, endpoint, { type: "invoice.paid", amount: 3100 });
  await test.step("the delivery's page shows a row per destination, and replays one alone", async () => {
    await receivedAtLeast(primary, 4);
    await receivedAtLeast(billing, 1);
    // Each destination's own counts on the endpoint's page: Billing's retry waits an hour, the default has nothing waiting.
    await page.goto(`/endpoints/${endpoint.id}`);
    await expect(async () => { // the page is read once: again until Billing's failed attempt has settled
      await page.reload();
      await expect(item("Billing").getByTestId("destination-stats")).toHaveText(/^1 pending · 0 delivering · 0 delivered · 0 dead · oldest waiting \d[^·]*$/, { timeout: 1000 });
    }).toPass();
    await expect(item("Default").getByTestId("destination-stats")).toContainText("0 pending · 0 delivering");
    await page.goto(`/deliveries/${invoice}`);
    const rows = page.getByTestId("delivery-destination");
    await expect(rows).toHaveCount(2);
    const row = (name: string) => rows.filter({ has: page.getByTestId("delivery-destination-name").getByText(name, { exact: true }) });
    await expect(row("Default").locator("[data-status]")).toHaveText("Delivered");
    await expect(row("Billing").locator("[data-status]")).toHaveText("Pending");
    await expect(row("Billing")).toContainText("HTTP 500 Internal Server Error");
    await expect(row("Billing")).toContainText("(last: HTTP 500)");
    await expect(page.getByTestId("attempt-destination").filter({ hasText: "to Billing" })).toHaveCount(1);
    await expect(page.getByTestId("attempt-destination").filter({ hasText: "to Default" })).toHaveCount(1);
    expect(await seriousViolations(page), "a delivery to two destinations").toEqual([]);

    billing.answer(200);
    const delivered = primary.requests.length;
    await page.getByRole("button", { name: "Replay to Billing", exact: true }).click();
    await expect(row("Billing").locator("[data-status]")).toHaveText("Delivered");
    await expect(page.getByTestId("delivery-status")).toHaveText("Delivered");
    expect(billing.requests.filter((r) => r.headers["x-inbox-delivery-id"] === invoice)).toHaveLength(2);
    expect(primary.requests.length).toBe(delivered); // the default destination was not sent it again
    await expect(page.getByTestId("attempt-destination").filter({ hasText: "to Billing" })).toHaveCount(2);
  });

  await test.step("the deliveries list filters by destination; filtered is a status to choose", async () => {
    await page.goto(`/deliveries?endpointId=${endpoint.id}`);
    await expect(page.getByTestId("delivery-row")).toHaveCount(4);
    await expect(page.getByLabel("Status").locator("option[value=filtered]")).toHaveCount(1);
    await page.getByLabel("Destination").selectOption({ label: "Billing" });
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/destinationId=dst_/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Deliveries of Shop to Billing");
    // Only the request sent after Billing was added went to it.
    await expect(page.getByTestId("delivery-row")).toHaveCount(1);
    await expect(page.getByTestId("delivery-row")).toHaveAttribute("data-delivery-id", invoice);
  });

  await test.step("a viewer sees the destinations and the rows, and no control that changes them", async () => {
    const viewerEmail = `e2e-viewer-${randomBytes(4).toString("hex")}@example.test`;
    await page.goto("/members");
    const invite = page.getByRole("form", { name: "Invite a member" });
    await invite.getByLabel("Email").fill(viewerEmail);
    await invite.getByLabel("Role").selectOption({ label: "Viewer" });
    await invite.getByRole("button", { name: "Send invitation" }).click();
    await expect(invite.getByRole("status")).toContainText(`Invitation sent to ${viewerEmail}`);
    const viewerContext = await browser.newContext();
    try {
      const viewer = await viewerContext.newPage();
      await viewer.goto(await invitationLinkMailedTo(viewerEmail));
      await viewer.getByLabel("Password").fill(E2E_PASSWORD);
      await viewer.getByRole("button", { name: "Sign up and join Fan Out Co" }).click();
      await expect(viewer.getByTestId("signed-in-user")).toHaveText(`${viewerEmail} · viewer`);

      await viewer.goto(`/endpoints/${endpoint.id}`);
      const main = viewer.locator("main");
      await expect(main.getByTestId("destination")).toHaveCount(2);
      await expect(main.getByTestId("destination-filter").filter({ hasText: "$startsWith" })).toHaveCount(1);
      await expect(main.getByRole("button", { name: CHANGE_BUTTONS })).toHaveCount(0);
      await expect(main.getByRole("textbox", { name: "Filter (JSON)" })).toHaveCount(0);

      await viewer.goto(`/deliveries/${invoice}`);
      await expect(main.getByTestId("delivery-destination")).toHaveCount(2);
      await expect(main.getByRole("button", { name: CHANGE_BUTTONS })).toHaveCount(0);
    } finally {
      await viewerContext.close();
    }
  });

  await test.step("deleting a destination is asked first, and takes it off the list", async () => {
    await page.goto(`/endpoints/${endpoint.id}`);
    await item("Billing").getByRole("button", { name: "Delete Billing…" }).click();
    const confirm = page.getByRole("form", { name: "Delete destination Billing" });
    await expect(confirm).toContainText("Delete “Billing”?");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await expect(confirm).toHaveCount(0);
    await expect(list.getByTestId("destination")).toHaveCount(2);
    await item("Billing").getByRole("button", { name: "Delete Billing…" }).click();
    await page.getByRole("form", { name: "Delete destination Billing" }).getByRole("button", { name: "Delete destination" }).click();
    await expect(list.getByTestId("destination")).toHaveCount(1);
    await expect(item("Default")).toBeVisible();
  });
});
