// The arguments every spec's Chromium starts with (playwright.config.ts), kept apart so e2e/chromium-args.spec.ts
// can check them against what Playwright itself passes.

/** What Playwright 1.65 disables itself (its chromiumSwitches), repeated below: Chromium reads only the last --disable-features. */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades", "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay", "MediaRouter", "PaintHolding", "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch",
  "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion",
];

// Debian's Chromium has no headless shell: each window of its new headless mode loads the omnibox popup (two WebUI
// pages, chrome://omnibox-popup.top-chrome) in a renderer of its own, which no spec ever sees. Without them a
// context costs 0.40 s of Chromium CPU instead of 0.75 s (15 contexts, two runs each way); in a CI run that
// renderer took 73 of Chromium's 455 s.
const OMNIBOX_POPUP_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...OMNIBOX_POPUP_FEATURES].join(",")}`,
];

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
