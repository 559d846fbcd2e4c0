// An owner invites a new address from the Members page; the link is read from the mail the invitee received
// (e2e/serve.ts runs a real SMTP server); in a fresh browser the invitee signs up through it and lands in the inviting
// organization with the invited role. Also: a refused invite keeps its fields, a used link says so,
// someone signed in as another address is told so and offered sign-out, and an existing account
// joins by signing in from the link, or with Join when already signed in.
import { randomBytes } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { E2E_PASSWORD, signUp } from "./dashboard-helpers";
import { invitationLinkMailedTo } from "./mail-helpers";

const newEmail = (what: string) => `e2e-${what}-${randomBytes(4).toString("hex")}@example.test`;

async function inviteFromMembersPage(page: Page, email: string, role: "Owner" | "Admin" | "Viewer") {
  await page.goto("/members");
  const form = page.getByRole("form", { name: "Invite a member" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Role").selectOption({ label: role });
  await form.getByRole("button", { name: "Send invitation" }).click();
  await expect(form.getByRole("status")).toHaveText(`Invitation sent to ${email}. The link works for 7 days.`);
  await expect(page.getByTestId("invitation").filter({ hasText: email })).toContainText(role.toLowerCase());
}

test("an invited address signs up from the mailed link and lands in the inviting organization as admin", async ({ page, browser }) => {
  const ownerEmail = await signUp(page, "Invite Co");

  // Refused: the owner is a member already. The form keeps what was typed.
  await page.goto("/members");
  const form = page.getByRole("form", { name: "Invite a member" });
  await form.getByLabel("Email").fill(ownerEmail);
  await form.getByLabel("Role").selectOption({ label: "Admin" });
  await form.getByRole("button", { name: "Send invitation" }).click();
  await expect(form.getByRole("alert")).toContainText("already a member");
  await expect(form.getByLabel("Email")).toHaveValue(ownerEmail);
  await expect(form.getByLabel("Role")).toHaveValue("admin");

  const invitee = newEmail("invitee");
  await inviteFromMembersPage(page, invitee, "Admin");
  const link = await invitationLinkMailedTo(invitee);

  const fresh = await browser.newContext();
  try {
    const guest = await fresh.newPage();
    await guest.goto(link);
    await expect(guest.getByTestId("invitation-summary")).toContainText(`join Invite Co as admin`);
    await expect(guest.getByTestId("invitation-summary")).toContainText(invitee);
    await expect(guest.getByLabel("Email")).toHaveValue(invitee);
    await guest.getByLabel("Password").fill("short");
    await guest.getByRole("button", { name: "Sign up and join Invite Co" }).click();
    await expect(guest.locator("form [role=alert]")).toContainText("at least 10 characters");
    await guest.getByLabel("Password").fill(E2E_PASSWORD);
    await guest.getByRole("button", { name: "Sign up and join Invite Co" }).click();
    await expect(guest).toHaveURL(/\/overview$/);
    await expect(guest.getByTestId("organization-name")).toContainText("Invite Co");
    await expect(guest.getByTestId("signed-in-user")).toHaveText(`${invitee} · admin`);

    // An admin sees the members read-only, themself with the invited role.
    await guest.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Members" }).click();
    await expect(guest.getByTestId("member").filter({ hasText: invitee }).getByTestId("member-role")).toHaveText("admin");
    await expect(guest.getByText("Only owners can invite, change roles or remove members.")).toBeVisible();
    await expect(guest.getByRole("form", { name: "Invite a member" })).toHaveCount(0);

    // The link is used up.
    await guest.goto(link);
    await expect(guest.getByTestId("invitation-state")).toContainText("already been used");
  } finally {
    await fresh.close();
  }

  // The owner sees the new member and no pending invitation for them.
  await page.goto("/members");
  await expect(page.getByTestId("member").filter({ hasText: invitee })).toBeVisible();
  await expect(page.getByTestId("invitation").filter({ hasText: invitee })).toHaveCount(0);
});

test("owners change roles and remove members; the last owner stays; a link opened while signed in as someone else offers sign-out", async ({ page }) => {
  const ownerEmail = await signUp(page, "Roles Co");

  // The last owner cannot step down: the page says so and keeps the role chosen.
  await page.goto("/members");
  const own = page.getByTestId("member").filter({ hasText: ownerEmail });
  await own.getByLabel(`Role of ${ownerEmail}`, { exact: true }).selectOption("viewer");
  await own.getByRole("button", { name: `Save role of ${ownerEmail}` }).click();
  await expect(own.getByRole("alert")).toContainText("last owner");
  await expect(own.getByLabel(`Role of ${ownerEmail}`, { exact: true })).toHaveValue("viewer");

  const other = newEmail("other");
  await inviteFromMembersPage(page, other, "Viewer");
  const link = await invitationLinkMailedTo(other);

  // Signed in as the owner, the link explains whose it is and offers sign-out, which comes back to it.
  await page.goto(link);
  await expect(page.getByRole("status")).toContainText(`You are signed in as ${ownerEmail}, but this invitation is for ${other}`);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(link);
  await page.getByLabel("Password").fill(E2E_PASSWORD);
  await page.getByRole("button", { name: "Sign up and join Roles Co" }).click();
  await expect(page).toHaveURL(/\/overview$/);
  await expect(page.getByTestId("signed-in-user")).toHaveText(`${other} · viewer`);

  // Back as the owner: make the viewer an admin, then remove them after confirming.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("Email").fill(ownerEmail);
  await page.getByLabel("Password").fill(E2E_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/overview$/);
  await page.goto("/members");
  const row = page.getByTestId("member").filter({ hasText: other });
  await row.getByLabel(`Role of ${other}`, { exact: true }).selectOption("admin");
  await row.getByRole("button", { name: `Save role of ${other}` }).click();
  // The row says so once the change is saved; a reload before that could cut the save off.
  await expect(row.getByRole("status")).toHaveText("Saved");
  await expect(row.getByLabel(`Role of ${other}`, { exact: true })).toHaveValue("admin");
  await page.reload();
  await expect(page.getByTestId("member").filter({ hasText: other }).getByLabel(`Role of ${other}`, { exact: true })).toHaveValue("admin");
  await page.getByRole("button", { name: `Remove ${other}` }).click();
  await page.getByRole("button", { name: `Yes, remove ${other}` }).click();
  await expect(page.getByTestId("member").filter({ hasText: other })).toHaveCount(0);

  // Invited again, the account (now in no organization) signs in from the link and joins in one step.
  await inviteFromMembersPage(page, other, "Viewer");
  const again = await invitationLinkMailedTo(other, 2);
  expect(again).not.toBe(link);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto(again);
  const signIn = page.getByRole("form", { name: "Sign in" });
  await expect(signIn.getByLabel("Email")).toHaveValue(other);
  await signIn.getByLabel("Password").fill("not-the-password");
  await signIn.getByRole("button", { name: "Sign in and join Roles Co" }).click();
  await expect(signIn.getByRole("alert")).toHaveText("Wrong email or password.");
  await signIn.getByLabel("Password").fill(E2E_PASSWORD);
  await signIn.getByRole("button", { name: "Sign in and join Roles Co" }).click();
  await expect(page).toHaveURL(/\/overview$/);
  await expect(page.getByTestId("organization-name")).toContainText("Roles Co");
  await page.goto("/members");
  await expect(page.getByTestId("member").filter({ hasText: other }).getByTestId("member-role")).toHaveText("viewer");
});

test("someone signed in with the invited address presses Join, and their session moves to the inviting organization", async ({ page, browser }) => {
  await signUp(page, "Join Co");
  const other = await browser.newContext();
  try {
    const invitee = await other.newPage();
    const inviteeEmail = await signUp(invitee, "Home Co");
    await expect(invitee.getByTestId("organization-name")).toContainText("Home Co");

    await inviteFromMembersPage(page, inviteeEmail, "Viewer");
    const link = await invitationLinkMailedTo(inviteeEmail);

    await invitee.goto(link);
    await invitee.getByRole("button", { name: "Join Join Co as viewer" }).click();
    await expect(invitee).toHaveURL(/\/overview$/);
    await expect(invitee.getByTestId("organization-name")).toContainText("Join Co");
    await invitee.goto("/members");
    await expect(invitee.getByTestId("member").filter({ hasText: inviteeEmail }).getByTestId("member-role")).toHaveText("viewer");
  } finally {
    await other.close();
  }
});
