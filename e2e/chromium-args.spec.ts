// The arguments playwright.config.ts gives Chromium (e2e/chromium-args.ts): they keep what Playwright disables
// itself, whose list Chromium would otherwise forget (it reads only the last --disable-features), and a window
// opens no omnibox popup page, a renderer's CPU per context that no spec ever sees.
import { chromium, expect, test, type Browser } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium-args";

/** The browser's command line: CDP answers it only with --enable-automation. */
async function commandLine(browser: Browser): Promise<string[]> {
  const cdp = await browser.newBrowserCDPSession();
  return ((await cdp.send("Browser.getBrowserCommandLine")) as { arguments: string[] }).arguments;
}

function disabledFeatures(args: string[]): string[][] {
  return args.filter((arg) => arg.startsWith("--disable-features=")).map((arg) => arg.slice("--disable-features=".length).split(","));
}

test("Chromium keeps Playwright's disabled features and opens no omnibox popup page", async () => {
  const plain = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ["--no-sandbox", "--enable-automation"] });
  const playwrightOwn = disabledFeatures(await commandLine(plain))[0]!;
  await plain.close();
  expect(playwrightOwn.length).toBeGreaterThan(0);

  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, "--enable-automation"] });
  try {
    const lists = disabledFeatures(await commandLine(browser));
    expect(lists.at(-1)).toEqual(expect.arrayContaining(playwrightOwn));

    const page = await (await browser.newContext()).newPage();
    await page.setContent("<h1>a page</h1>");
    const { targetInfos } = (await (await browser.newBrowserCDPSession()).send("Target.getTargets")) as { targetInfos: { type: string; url: string }[] };
    expect(targetInfos.filter((target) => target.type !== "page").map((target) => target.url)).toEqual([]);
    expect(targetInfos.filter((target) => target.type === "page")).toHaveLength(1);
  } finally {
    await browser.close();
  }
});
