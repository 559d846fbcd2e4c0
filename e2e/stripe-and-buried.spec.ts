// Issue #47 points 1, 5, 7 and 10 in real Chromium: a Stripe endpoint made in one pass (created before its
// secret, what Stripe sent meanwhile quarantined with its event type and id, delivered once the secret is set,
// the dashboard saying what it re-admitted); a buried delivery told apart from a failed one on its page and in
// the overview; and bulk replay acting on a search.
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import Stripe from "stripe";
import { createEndpoint, receivedAtLeast, sendWebhook, signUp, startDestination, type TestDestination } from "./dashboard-helpers";

let destination: TestDestination;
test.beforeAll(async () => {
  destination = await startDestination(200);
});
test.afterAll(async () => {
  await destination?.close();
});

const STRIPE_SECRET = "whsec_e2e_the_secret_stripe_shows";
const stripeSdk = new Stripe("sk_test_unused");

test("a Stripe endpoint is made in one pass: created first, the secret pasted after, what came meanwhile delivered", async ({ page, request }) => {
  await signUp(page, "One Pass");
  await page.goto("/endpoints/new");
  await page.getByLabel("Name").fill("Stripe payments");
  await page.getByLabel("Provider").selectOption({ label: "Stripe" });
  await page.getByLabel("Destination URL").fill(destination.url);
  // The order is said where the secret is asked for.
  await expect(page.getByText(/In order: 1\. create the endpoint; 2\. copy its ingest URL into Stripe; 3\. paste the secret/)).toBeVisible();
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.getByText(/Endpoint created, awaiting its signing secret/)).toBeVisible();
  const ingestUrl = (await page.getByTestId("ingest-url").textContent())!;
  await expect(page.getByRole("button", { name: "Set signing secret" })).toBeVisible();

  const eventId = `evt_${randomBytes(6).toString("hex")}`;
  await test.step("Stripe sends before the secret is set: refused, kept, shown as which event it is", async () => {
    const body = JSON.stringify({ id: eventId, object: "event", type: "invoice.paid", data: { object: { customer: "cus_42" } } });
    const response = await request.post(ingestUrl, {
      data: body,
      headers: { "content-type": "application/json", "stripe-signature": stripeSdk.webhooks.generateTestHeaderString({ payload: body, secret: STRIPE_SECRET }) },
    });
    expect(response.status()).toBe(401);
    await page.getByRole("link", { name: "Open the endpoint" }).click();
    await expect(page.getByTestId("awaiting-secret")).toContainText("Awaiting its signing secret");
    const row = page.getByTestId("quarantined-request");
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId("quarantine-event")).toContainText("invoice.paid");
    await expect(row.getByTestId("quarantine-event")).toContainText(eventId);
  });

  await test.step("the secret is pasted: the page says what it re-admitted, and the destination gets it", async () => {
    const before = destination.requests.length;
    await page.getByLabel("Signing secret from Stripe").fill(STRIPE_SECRET);
    await page.getByRole("button", { name: "Set signing secret" }).click();
    await expect(page.getByText("Signing secret set: requests signed with it are delivered from now on.")).toBeVisible();
    await expect(page.getByTestId("readmitted")).toHaveText("1 quarantined request verified with it and became deliveries.");
    await expect(page.getByTestId("awaiting-secret")).toHaveCount(0);
    await receivedAtLeast(destination, before + 1);
    expect(destination.requests.at(-1)!.body).toContain(eventId);
  });

  await test.step("the secret can also be pasted on the screen that shows the new ingest URL", async () => {
    await page.goto("/endpoints/new");
    await page.getByLabel("Name").fill("GitHub pushes");
    await page.getByLabel("Provider").selectOption({ label: "GitHub" });
    await page.getByLabel("Destination URL").fill(destination.url);
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await page.getByLabel("Signing secret from GitHub").fill("a-github-webhook-secret");
    await page.getByRole("button", { name: "Set signing secret" }).click();
    await expect(page.getByTestId("readmitted")).toHaveText("Nothing in the quarantine verifies with it.");
  });
});

test("a buried delivery is not a failure: told apart on its page, left out of the overview's dead and success rate", async ({ page, request }) => {
  destination.answer(200);
  await signUp(page, "Buriers");
  const endpoint = await createEndpoint(page, "Orders", destination.url);
  await sendWebhook(request, endpoint, { type: "order.created" }); // delivered
  await expect.poll(async () => (await page.goto("/overview"), await page.getByTestId("success-rate").textContent()), { timeout: 30_000 }).toBe("100 %");

  await test.step("buried by hand: 'Buried', why, and not counted as dead", async () => {
    await page.goto(`/endpoints/${endpoint.id}`);
    await page.getByRole("button", { name: "Pause deliveries" }).click();
    await expect(page.getByTestId("endpoint-state")).toHaveText("Paused");
    const held = await sendWebhook(request, endpoint, { type: "order.updated" });
    await page.goto(`/deliveries/${held}`);
    await page.getByRole("button", { name: "Bury" }).click();
    await expect(page.getByTestId("delivery-status")).toHaveText("Buried");
    await expect(page.getByTestId("dead-reason")).toHaveText("Buried by a person or API key; nothing failed");
    await page.goto("/overview");
    await expect(page.getByTestId("dead-count")).toHaveText("0");
    await expect(page.getByTestId("buried-count")).toHaveText("1 buried");
    await expect(page.getByTestId("success-rate")).toHaveText("100 %");
  });

  await test.step("refused by the destination: 'Dead', why, counted as dead and in the rate", async () => {
    destination.answer(410);
    await page.goto(`/endpoints/${endpoint.id}`);
    await page.getByRole("button", { name: "Resume deliveries" }).click();
    await expect(page.getByTestId("endpoint-state")).toHaveText("Active");
    const refused = await sendWebhook(request, endpoint, { type: "order.cancelled" });
    await page.goto(`/deliveries/${refused}`);
    await expect(page.getByTestId("delivery-status")).toHaveText("Dead", { timeout: 30_000 });
    await expect(page.getByTestId("dead-reason")).toHaveText("Failed: the destination refused it as final");
    await expect.poll(async () => (await page.goto("/overview"), await page.getByTestId("dead-count").textContent()), { timeout: 30_000 }).toBe("1");
    await expect(page.getByTestId("buried-count")).toHaveText("1 buried");
    await expect(page.getByTestId("success-rate")).toHaveText("50 %");
  });
});

test("bulk replay acts on a search: the count first, then only what the search found", async ({ page, request }) => {
  destination.answer(200);
  await signUp(page, "Bulk Searchers");
  const endpoint = await createEndpoint(page, "Customers", destination.url);
  const word = `alice${randomBytes(3).toString("hex")}@example.com`;
  await sendWebhook(request, endpoint, { type: "customer.updated", email: word });
  await sendWebhook(request, endpoint, { type: "customer.created", email: word });
  await sendWebhook(request, endpoint, { type: "customer.updated", email: "bob@example.com" });
  // This endpoint's requests (the destination server is shared with the other tests): first attempts, then replays.
  const ours = (attempt: string) => destination.requests.filter((sent) => sent.headers["x-inbox-destination-id"] === `dst_${endpoint.id.slice(3)}` && sent.headers["x-inbox-attempt"] === attempt);
  await expect.poll(() => ours("1").length, { timeout: 30_000 }).toBe(3);

  await page.goto(`/deliveries?endpointId=${endpoint.id}`);
  await page.getByRole("searchbox", { name: "Search" }).fill(word);
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByTestId("delivery-row")).toHaveCount(2);
  await page.getByRole("button", { name: "Replay all matching…" }).click();
  await expect(page.getByText("2 deliveries match. Confirm?")).toBeVisible();
  await page.getByRole("button", { name: "Replay 2 deliveries" }).click();
  await expect(page.getByText("Replayed 2 deliveries")).toBeVisible();
  await expect.poll(() => ours("2").length, { timeout: 30_000 }).toBe(2);
  for (const sent of ours("2")) expect(sent.body).toContain(word);
});
