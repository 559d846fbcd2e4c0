// The CSP does not get in the dashboard's way (no violation reported while signing up and using
// pages), and a page of ours cannot be framed by another site.
import { expect, test } from "@playwright/test";
import { signUp } from "./dashboard-helpers";

test("the dashboard works under its CSP and refuses to be framed", async ({ page, baseURL }) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to (execute|load|apply|connect|frame)/i.test(message.text())) violations.push(message.text());
  });
  await signUp(page, "CSP Co");
  for (const path of ["/overview", "/endpoints", "/endpoints/new", "/deliveries", "/api-keys"]) {
    await page.goto(path);
    await expect(page.locator("body")).toBeVisible();
  }
  // Client-side navigation needs the inline bootstrap and the chunks: follow a link.
  await page.goto("/overview");
  await page.getByRole("link", { name: "Endpoints" }).first().click();
  await expect(page).toHaveURL(/\/endpoints$/);
  expect(violations).toEqual([]);

  // Another origin (about:blank with our page in an iframe) gets nothing rendered inside.
  const framer = await page.context().newPage();
  const blocked: string[] = [];
  framer.on("console", (message) => blocked.push(message.text()));
  await framer.setContent(`<iframe id="f" src="${baseURL}/login" width="400" height="300"></iframe>`);
  await expect.poll(() => blocked.some((text) => /frame-ancestors|X-Frame-Options|Refused to (display|frame)/i.test(text))).toBe(true);
  const frame = framer.frames().find((candidate) => candidate.url().includes("/login"));
  expect(await frame?.locator("input").count().catch(() => 0) ?? 0).toBe(0);
});
