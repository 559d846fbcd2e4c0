// Issue #15 in Chromium: a viewer sees no control that changes anything; the header switches between
// a user's organizations, each showing only its own data; an owner creates another organization and
// deletes one (typing its name), landing in another organization or, with none left, on the page to
// create one. The viewer's membership is written to the database directly: invitations are another
// branch's work.
import { expect, test, type Page } from "@playwright/test";
import postgres from "postgres";
import { createEndpoint, e2eDatabaseUrl, receivedAtLeast, sendWebhook, signUp, startDestination } from "./dashboard-helpers";

const CHANGE_BUTTONS = /replay|bury|delete|create|revoke|pause|resume|save|rotate|re-verify|deliver \d|send test event/i;

async function organizationId(page: Page): Promise<string> {
  await page.goto("/settings");
  return (await page.getByTestId("organization-id").textContent())!;
}

async function switchTo(page: Page, name: string) {
  await page.getByLabel("Switch organization").selectOption({ label: name });
  await page.getByRole("banner").getByRole("button", { name: "Switch" }).click();
  await expect(page.getByTestId("organization-name")).toContainText(name);
  await expect(page).toHaveURL(/\/overview$/);
}

/** The page's own content (not the header) offers nothing that changes data. */
async function expectNoChangeControls(page: Page, path: string) {
  await page.goto(path);
  const main = page.locator("main");
  await expect(main.locator("h1")).toBeVisible();
  await expect(main.getByRole("button", { name: CHANGE_BUTTONS })).toHaveCount(0);
  await expect(main.getByRole("link", { name: /new endpoint|create one/i })).toHaveCount(0);
}

test("a viewer sees no change controls, and each organization shows only its own data", async ({ browser, page, request }) => {
  const destination = await startDestination(200);
  const sql = postgres(e2eDatabaseUrl(), { max: 1, onnotice: () => {} });
  try {
    const ownerEmail = await signUp(page, "Alpha Team");
    const alphaId = await organizationId(page);
    const endpoint = await createEndpoint(page, "Alpha orders", destination.url);
    const deliveryId = await sendWebhook(request, endpoint, { type: "order.created", data: { note: "alpha-only-payload" } });
    await receivedAtLeast(destination, 1);
    // The owner has the controls: their absence below is the role's doing.
    await page.goto(`/deliveries/${deliveryId}`);
    await expect(page.locator("main").getByRole("button", { name: "Replay" })).toBeVisible();
    await page.goto(`/endpoints/${endpoint.id}`);
    await expect(page.getByRole("button", { name: "Pause deliveries" })).toBeVisible();
    // An owner may give a key any role; the list says each key's role and who made it.
    await page.goto("/api-keys");
    await expect(page.getByLabel("Role").locator("option")).toHaveText([/^admin/, /^viewer/, /^owner/]);
    await page.getByLabel("Key name").fill("Support dashboard");
    await page.getByLabel("Role").selectOption("viewer");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect(page.getByTestId("new-api-key")).toBeVisible();
    await expect(page.getByTestId("key-role")).toContainText("viewer");
    await expect(page.getByTestId("key-created-by")).toContainText(ownerEmail);

    const viewerContext = await browser.newContext({ baseURL: new URL(page.url()).origin });
    const viewer = await viewerContext.newPage();
    const viewerEmail = await signUp(viewer, "Vee Own");
    const own = await createEndpoint(viewer, "Vee hooks", destination.url);
    await sql`insert into memberships (organization_id, user_id, role) select ${alphaId}, id, 'viewer' from users where email = ${viewerEmail}`;

    await viewer.goto("/overview");
    await switchTo(viewer, "Alpha Team");
    await expect(viewer.getByTestId("signed-in-user")).toHaveText(`${viewerEmail} · viewer`);
    for (const path of ["/overview", "/endpoints", `/endpoints/${endpoint.id}`, "/endpoints/new", `/deliveries?endpointId=${endpoint.id}`, `/deliveries/${deliveryId}`, "/api-keys", "/settings"]) {
      await expectNoChangeControls(viewer, path);
    }
    // What a viewer may see is there: the endpoint's settings (read only), the delivery, the keys with their roles.
    await viewer.goto(`/endpoints/${endpoint.id}`);
    await expect(viewer.getByLabel("Name", { exact: true })).toHaveValue("Alpha orders");
    await expect(viewer.getByLabel("Name", { exact: true })).toBeDisabled();
    await viewer.goto(`/deliveries/${deliveryId}`);
    await expect(viewer.getByTestId("delivery-body")).toContainText("alpha-only-payload");
    await viewer.goto("/api-keys");
    await expect(viewer.getByTestId("api-key")).toHaveCount(1);
    await expect(viewer.getByTestId("key-created-by")).toContainText(ownerEmail);
    await expect(viewer.getByLabel("Key name")).toHaveCount(0);
    await viewer.goto("/endpoints");
    await expect(viewer.getByText("Alpha orders")).toBeVisible();
    await expect(viewer.getByText("Vee hooks")).toHaveCount(0);

    // Back in their own organization, Alpha's things are not there at all.
    await switchTo(viewer, "Vee Own");
    await expect(viewer.getByTestId("signed-in-user")).toHaveText(`${viewerEmail} · owner`);
    await viewer.goto("/endpoints");
    await expect(viewer.getByText("Vee hooks")).toBeVisible();
    await expect(viewer.getByText("Alpha orders")).toHaveCount(0);
    expect((await viewer.goto(`/deliveries/${deliveryId}`))?.status()).toBe(404);
    expect((await viewer.goto(`/endpoints/${endpoint.id}`))?.status()).toBe(404);
    await viewer.goto("/deliveries");
    await expect(viewer.getByText("alpha-only-payload")).toHaveCount(0);
    // And the owner of Alpha cannot open the viewer's own endpoint.
    expect((await page.goto(`/endpoints/${own.id}`))?.status()).toBe(404);
    await viewerContext.close();
  } finally {
    await sql.end();
    await destination.close();
  }
});

test("an owner creates another organization, switches, and deletes organizations until none is left", async ({ page, request }) => {
  const destination = await startDestination(200);
  const sql = postgres(e2eDatabaseUrl(), { max: 1, onnotice: () => {} });
  try {
    await signUp(page, "First Team");
    const firstId = await organizationId(page);
    const endpoint = await createEndpoint(page, "First hooks", destination.url);
    await sendWebhook(request, endpoint, { type: "a" });

    await page.getByRole("link", { name: "New organization" }).click();
    await page.getByLabel("Organization name").fill("Second Team");
    await page.getByRole("button", { name: "Create organization" }).click();
    await expect(page).toHaveURL(/\/overview$/);
    await expect(page.getByTestId("organization-name")).toContainText("Second Team");
    await page.goto("/endpoints");
    await expect(page.getByText("No endpoints yet.")).toBeVisible();

    await switchTo(page, "First Team");
    await page.goto("/endpoints");
    await expect(page.getByText("First hooks")).toBeVisible();
    await switchTo(page, "Second Team");

    // Delete Second: only once its name is typed; the owner lands in First.
    await page.goto("/settings");
    const remove = page.getByRole("button", { name: "Delete organization" });
    await page.getByLabel("Type “Second Team” to confirm").fill("Second");
    await expect(remove).toBeDisabled();
    await page.getByLabel("Type “Second Team” to confirm").fill("Second Team");
    await remove.click();
    await expect(page).toHaveURL(/\/overview$/);
    await expect(page.getByTestId("organization-name")).toContainText("First Team");
    await expect(page.getByLabel("Switch organization")).toHaveCount(0); // one organization left: nothing to switch to

    // Delete First, the last one: its endpoint stops receiving at once, its data goes in the background,
    // and the owner is offered to create an organization.
    await page.goto("/settings");
    await page.getByLabel("Type “First Team” to confirm").fill("First Team");
    await page.getByRole("button", { name: "Delete organization" }).click();
    await expect(page).toHaveURL(/\/organizations\/new$/);
    await expect(page.getByText("You no longer belong to any organization.")).toBeVisible();
    await expect(page.getByTestId("organization-name")).toHaveText("No organization");
    // Their own account is still theirs; the organization's pages send them back here.
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link")).toHaveText(["Account"]);
    await page.goto("/account");
    await expect(page.getByRole("heading", { name: "Account" })).toBeVisible();
    await page.goto("/endpoints");
    await expect(page).toHaveURL(/\/organizations\/new$/);
    const [marked] = await sql`select deleted_at is not null as deleted, (select count(*)::int from memberships where organization_id = ${firstId}) as members,
                                  (select count(*)::int from api_keys where organization_id = ${firstId}) as keys from organizations where id = ${firstId}`;
    expect(marked).toEqual({ deleted: true, members: 0, keys: 0 });
    await expect.poll(async () => (await sql`select count(*)::int as n from endpoints where organization_id = ${firstId}`)[0]!.n, { timeout: 30_000 }).toBe(0);
    await expect.poll(async () => (await sql`select count(*)::int as n from deliveries where organization_id = ${firstId}`)[0]!.n, { timeout: 30_000 }).toBe(0);
    await expect.poll(async () => (await request.post(endpoint.ingestUrl, { data: "{}" })).status(), { timeout: 15_000 }).toBe(404);

    await page.getByLabel("Organization name").fill("Third Team");
    await page.getByRole("button", { name: "Create organization" }).click();
    await expect(page).toHaveURL(/\/overview$/);
    await expect(page.getByTestId("organization-name")).toContainText("Third Team");
  } finally {
    await sql.end();
    await destination.close();
  }
});
