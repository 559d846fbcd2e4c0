// Issue #14 point 7: a page that refreshes itself while deliveries wait makes one request per
// refresh (no re-fetch of every link on the page), and none while its tab is hidden.
import { expect, test, type Page } from "@playwright/test";
import { createEndpoint, sendWebhook, signUp } from "./dashboard-helpers";

/** The app's own requests (not its static files) from now on, as path + query. */
function recordRequests(page: Page): string[] {
  const seen: string[] = [];
  const origin = new URL(page.url()).origin;
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.origin === origin && !url.pathname.startsWith("/_next/static")) seen.push(url.pathname + url.search);
  });
  return seen;
}

async function setHidden(page: Page, hidden: boolean) {
  await page.evaluate((hide) => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (hide ? "hidden" : "visible") });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => hide });
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
}

test("an idle auto-refreshing page makes one request per refresh, and none while hidden", async ({ page, request }) => {
  test.setTimeout(90_000);
  await signUp(page, "Idle Tabs Co");
  // Nothing listens on port 9: the delivery keeps waiting (retries an hour apart).
  const endpoint = await createEndpoint(page, "Waiting", "http://127.0.0.1:9/hook");
  await page.goto(`/endpoints/${endpoint.id}`);
  await page.getByLabel("Retry base (seconds)").fill("3600");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Settings saved.")).toBeVisible();
  const id = await sendWebhook(request, endpoint, { type: "still.waiting" });

  for (const [path, intervalMs] of [[`/deliveries/${id}`, 2000], ["/deliveries", 3000]] as const) {
    await test.step(`${path}: every request while idle is the page's own refresh`, async () => {
      await page.goto(path);
      await expect(page.getByText(`Refreshing every ${intervalMs / 1000} s`)).toBeVisible();
      await page.waitForTimeout(1000); // whatever the first load fetches after it settles
      const seen = recordRequests(page);
      await page.waitForTimeout(2 * intervalMs + 700);
      expect(seen.length, seen.join("\n")).toBeGreaterThanOrEqual(1); // (a refresh still under way when the next is due is not doubled)
      expect(seen.length, seen.join("\n")).toBeLessThanOrEqual(3);
      for (const url of seen) expect(new URL(url, "http://x").pathname).toBe(path);

      await setHidden(page, true);
      seen.length = 0;
      await page.waitForTimeout(1.5 * intervalMs);
      expect(seen, "no refresh while the tab is hidden").toEqual([]);
      await setHidden(page, false);
      await expect.poll(() => seen.length, { timeout: 2000 }).toBeGreaterThan(0); // back: refreshed at once
    });
  }
});
