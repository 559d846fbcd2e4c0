import { defineConfig } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./e2e/chromium-args";

const port = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://localhost:${port}`;

export default defineConfig({
  testDir: "e2e",
  outputDir: "e2e/artifacts/results",
  // CI runs Playwright beside the fault suites on 2 cores: a long spec that takes 40 s there passed 60 s twice.
  timeout: 120_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  // Two: the specs sign up their own accounts and organizations, and a spec mostly waits on the browser and the server.
  workers: 2,
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: {
    baseURL,
    // Debian's Chromium: Playwright's own browser download cannot work here (STACK-NOTES #11).
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
    },
    screenshot: "only-on-failure",
    trace: "off",
  },
  webServer: {
    // A fresh database and the real product (web + worker) for the run; see e2e/serve.ts.
    command: `node --import tsx e2e/serve.ts`,
    url: `${baseURL}/api/health`,
    // The specs sign up 14 accounts from this one address (invitation.spec.ts 6 of them); the default limit is 5 an hour.
    env: { PORT: String(port), APP_URL: baseURL, AUTH_URL: baseURL, INBOX_ALLOW_PRIVATE_DESTINATIONS: "true", AUTH_SIGNUP_ADDRESS_LIMIT: "50", PASSWORD_HASH_COST: "12" },
    timeout: 240_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 30_000 },
  },
});
