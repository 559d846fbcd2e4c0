// Issue #47, what a newcomer still trips over in the dashboard: the header at 1280 px (points 8), the endpoint
// views (9), the event-type filter (6), search by a delivery's id (4) and "Send test event" (12), in Chromium.
import { expect, test, type Locator, type Page } from "@playwright/test";
import { createEndpoint, receivedAtLeast, sendWebhook, signUp, startDestination, type TestDestination } from "./dashboard-helpers";

test.describe.configure({ mode: "serial", timeout: 120_000 });

let destination: TestDestination;
test.beforeAll(async () => {
  destination = await startDestination(200);
});
test.afterAll(async () => {
  await destination?.close();
});

const box = async (locator: Locator) => (await locator.boundingBox())!;
/** Lines a piece of text takes: its height over its computed line height. */
const lines = (locator: Locator) => locator.evaluate((element) => Math.round(element.getBoundingClientRect().height / parseFloat(getComputedStyle(element).lineHeight)));

async function expectHeaderFits(page: Page) {
  const header = page.getByRole("banner");
  const nav = header.getByRole("navigation", { name: "Main" });
  const links = await nav.getByRole("link").all();
  expect(links.length).toBeGreaterThan(5);
  const tops = await Promise.all(links.map(async (link) => Math.round((await box(link)).y)));
  expect(new Set(tops).size, `the navigation on one row (link tops ${tops.join(", ")})`).toBe(1);
  for (const link of links) expect(await lines(link), `${await link.textContent()} on one line`).toBe(1);
  // The user line whole: not cut off by an ellipsis nor wrapped.
  const user = header.getByTestId("signed-in-user");
  await expect(user).toContainText(/e2e-[0-9a-f]+@example\.test · owner/);
  expect(await user.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  expect(await lines(user)).toBe(1);
  const signOut = header.getByRole("button", { name: "Sign out" });
  expect(await lines(signOut), "Sign out on one line").toBe(1);
  // Nothing spills out of the header sideways.
  expect(await header.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  return { header, user, signOut };
}

test("the header at 1280 px: navigation on one row, the user line whole, Sign out on one line, two organizations' switcher fitting", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await signUp(page, "Header Co");
  await expectHeaderFits(page);

  await page.goto("/organizations/new");
  await page.getByLabel("Organization name").fill("Second Header Co");
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(page.getByTestId("organization-name")).toContainText("Second Header Co");
  const { header, user, signOut } = await expectHeaderFits(page);
  const select = header.getByLabel("Switch organization");
  const switchButton = header.getByRole("button", { name: "Switch" });
  await expect(select).toBeVisible();
  expect(await lines(switchButton)).toBe(1);
  // The switcher, the user line and Sign out side by side on the header's first row, none over another.
  const [selectBox, switchBox, userBox, signOutBox] = await Promise.all([box(select), box(switchButton), box(user), box(signOut)]);
  expect(switchBox.x).toBeGreaterThanOrEqual(selectBox.x + selectBox.width);
  expect(userBox.x).toBeGreaterThanOrEqual(switchBox.x + switchBox.width);
  expect(signOutBox.x).toBeGreaterThanOrEqual(userBox.x + userBox.width);
  const navTop = (await box(header.getByRole("navigation", { name: "Main" }))).y;
  for (const part of [selectBox, switchBox, userBox, signOutBox]) expect(part.y + part.height).toBeLessThanOrEqual(navTop + 1);
});

test("endpoint views: the list shows destinations and health, pending told apart; pages titled by what they show; API keys' empty state", async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await signUp(page, "Views Co");
  await page.goto("/api-keys");
  await expect(page.getByTestId("api-keys-empty")).toContainText("No API keys yet");
  await expect(page.getByRole("columnheader", { name: "Last used" })).toHaveCount(0);

  const endpoint = await createEndpoint(page, "Billing events", destination.url);
  await page.goto(`/endpoints/${endpoint.id}`);
  await expect(page).toHaveTitle("Billing events · Webhook Inbox");
  destination.answer(503);
  const before = destination.requests.length;
  const delivery = await sendWebhook(request, endpoint, { type: "invoice.paid", data: { id: "in_1" } });
  await receivedAtLeast(destination, before + 1); // tried once, failed: retrying

  await page.goto("/endpoints");
  const item = page.getByTestId("endpoint-item").filter({ hasText: "Billing events" });
  await expect(item.getByTestId("endpoint-destinations")).toContainText(destination.url);
  await expect(item.getByTestId("endpoint-health")).toContainText("1 pending");
  await expect(item.getByTestId("pending-split")).toHaveText("1 retrying");

  await page.goto(`/endpoints/${endpoint.id}`);
  await page.getByRole("button", { name: "Pause deliveries" }).click();
  await expect(page.getByTestId("endpoint-state")).toHaveText("Paused");
  await page.reload();
  await expect(page.getByTestId("destination-stats")).toContainText("1 held by a pause");
  await page.goto("/endpoints");
  await expect(item.getByTestId("pending-split")).toContainText("1 held by a pause");
  await expect(item.getByTestId("endpoint-destinations")).toContainText("(paused)");

  await page.goto(`/deliveries/${delivery}`);
  await expect(page).toHaveTitle(`Delivery ${delivery} · Webhook Inbox`);
  destination.answer(200);
});

test("the event-type filter suggests the types received and shows its invoice.* hint at 1280 px; search finds a delivery by its id", async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await signUp(page, "Filter Co");
  const endpoint = await createEndpoint(page, "Shop", destination.url);
  const first = await sendWebhook(request, endpoint, { type: "invoice.paid", data: { id: "in_1" } });
  await sendWebhook(request, endpoint, { type: "customer.created", data: { id: "cus_1" } });

  await page.goto("/deliveries");
  const input = page.getByLabel("Event type");
  await expect(input).toHaveAttribute("list", "event-type-suggestions");
  const suggestions = await page.locator("#event-type-suggestions option").evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
  expect(suggestions).toEqual(["customer.created", "invoice.paid"]);
  const hint = page.locator("#filter-event-type-hint");
  await expect(hint).toBeVisible();
  await expect(hint).toContainText("invoice.*");
  // Whole on screen: not cut by its column, and within the input's width.
  expect(await hint.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  const [hintBox, inputBox] = [await box(hint), await box(input)];
  expect(hintBox.x + hintBox.width).toBeLessThanOrEqual(inputBox.x + inputBox.width + 1);

  await page.getByLabel("Search").fill(first);
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByTestId("delivery-row")).toHaveCount(1);
  await expect(page.getByTestId("delivery-row")).toContainText("invoice.paid");
});

test("Send test event on the endpoint page: a delivery marked test reaches the destination", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await signUp(page, "Test Event Co");
  const endpoint = await createEndpoint(page, "Orders", destination.url);
  await page.goto(`/endpoints/${endpoint.id}`);
  const before = destination.requests.length;
  await page.getByRole("button", { name: "Send test event" }).click();
  const link = page.getByTestId("test-event-delivery");
  await expect(link).toHaveText(/^dlv_/);
  const id = (await link.textContent())!;
  await receivedAtLeast(destination, before + 1);
  const received = destination.requests.find((r) => r.headers["x-inbox-delivery-id"] === id);
  expect(JSON.parse(received!.body)).toMatchObject({ type: "inbox.test", test: true });
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/deliveries/${id}$`));
  await expect(page.getByTestId("test-badge")).toBeVisible();
  await page.goto(`/deliveries?endpointId=${endpoint.id}`);
  await expect(page.getByTestId("delivery-row").filter({ hasText: "inbox.test" }).getByTestId("test-badge")).toBeVisible();
});
