// Issue #41 in Chromium: a viewer opening the Mailbox finds no invitation and no link to take an owner's place;
// a page left open in one organization cannot act on another after the session switched (in another tab).
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { E2E_PASSWORD, signUp } from "./dashboard-helpers";
import { invitationLinkMailedTo } from "./mail-helpers";

const newEmail = (what: string) => `e2e-${what}-${randomBytes(4).toString("hex")}@example.test`;

test("no member, not even the inviting owner, can read an invitation's link in the Mailbox", async ({ page, browser }) => {
  await signUp(page, "Mailbox Co");
  const invite = async (email: string, role: string) => {
    await page.goto("/members");
    const form = page.getByRole("form", { name: "Invite a member" });
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Role").selectOption({ label: role });
    await form.getByRole("button", { name: "Send invitation" }).click();
    await expect(form.getByRole("status")).toContainText(`Invitation sent to ${email}`);
  };

  // A viewer joins, as a viewer would: from the link mailed to them.
  const viewerEmail = newEmail("viewer");
  await invite(viewerEmail, "Viewer");
  const viewerLink = await invitationLinkMailedTo(viewerEmail);
  const viewerContext = await browser.newContext();
  try {
    const viewer = await viewerContext.newPage();
    await viewer.goto(viewerLink);
    await viewer.getByLabel("Password").fill(E2E_PASSWORD);
    await viewer.getByRole("button", { name: "Sign up and join Mailbox Co" }).click();
    await expect(viewer.getByTestId("signed-in-user")).toHaveText(`${viewerEmail} · viewer`);

    // The owner invites a new owner; the mail reaches the new hire.
    const newHire = newEmail("newhire");
    await invite(newHire, "Owner");
    const ownerLink = await invitationLinkMailedTo(newHire);

    for (const who of [viewer, page]) {
      await who.goto("/mailbox");
      await expect(who.getByRole("heading", { name: "Mailbox" })).toBeVisible();
      await expect(who.getByRole("listitem").filter({ hasText: newHire })).toHaveCount(0);
      const html = await who.content();
      expect(html).not.toContain(ownerLink);
      expect(html).not.toContain("/invite/");
    }

    // The viewer sees their own invitation mail, with its link removed.
    const own = viewer.getByRole("listitem").filter({ hasText: `to ${viewerEmail}` });
    await expect(own).toHaveCount(1);
    await own.locator("summary").click();
    await expect(own.locator("pre")).toContainText("[link removed: it reaches only the recipient]");
  } finally {
    await viewerContext.close();
  }
});

test("a settings page opened in one organization is refused after another tab switched the session", async ({ page, context }) => {
  await signUp(page, "First Tab Co");
  await page.goto("/settings");
  const form = page.getByRole("form", { name: "Organization settings" });
  await expect(form.getByLabel("Organization name")).toHaveValue("First Tab Co");

  // Another tab of the same session creates (and so switches to) a second organization.
  const other = await context.newPage();
  await other.goto("/organizations/new");
  await other.getByLabel("Organization name").fill("Second Tab Co");
  await other.getByRole("button", { name: "Create organization" }).click();
  await expect(other.getByTestId("organization-name")).toContainText("Second Tab Co");

  // The first tab still shows the first organization's settings: saving them must not rename the second.
  await form.getByLabel("Organization name").fill("Renamed by a stale tab");
  await form.getByRole("button", { name: "Save settings" }).click();
  await expect(form.getByRole("alert")).toContainText("This page was opened in another organization");
  await other.goto("/settings");
  await expect(other.getByRole("form", { name: "Organization settings" }).getByLabel("Organization name")).toHaveValue("Second Tab Co");
});
