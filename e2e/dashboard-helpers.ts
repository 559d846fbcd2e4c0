// Shared steps for the dashboard specs: a real destination server on 127.0.0.1, sign-up, endpoint
// creation through the UI, and webhooks signed with the standardwebhooks SDK.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { Webhook } from "standardwebhooks";

export interface TestDestination {
  url: string;
  /** Every request received, in order. */
  requests: Array<{ headers: http.IncomingHttpHeaders; body: string }>;
  /** From now on, answer `status`, after `delayMs`. */
  answer(status: number, delayMs?: number): void;
  close(): Promise<void>;
}

export async function startDestination(initialStatus: number): Promise<TestDestination> {
  let status = initialStatus;
  let delayMs = 0;
  const requests: TestDestination["requests"] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const [answering, after] = [status, delayMs];
      setTimeout(() => {
        res.writeHead(answering, { "content-type": "text/plain" });
        res.end(answering >= 400 ? "destination is down for maintenance" : "ok");
      }, after);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    answer: (next, delay = 0) => {
      status = next;
      delayMs = delay;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export const E2E_PASSWORD = "a-long-e2e-password";

/** Signs a new owner up through the form (a fresh email, E2E_PASSWORD); the email it used. */
export async function signUp(page: Page, organizationName: string): Promise<string> {
  const email = `e2e-${randomBytes(5).toString("hex")}@example.test`;
  await page.goto("/signup");
  await page.getByLabel("Organization name").fill(organizationName);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(E2E_PASSWORD);
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/overview$/);
  return email;
}

/** Creates a standard-webhooks endpoint through the form; its ingest URL and generated secret. */
export async function createEndpoint(page: Page, name: string, destinationUrl: string) {
  await page.goto("/endpoints/new");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Destination URL").fill(destinationUrl);
  await page.getByRole("button", { name: "Create endpoint" }).click();
  const ingestUrl = (await page.getByTestId("ingest-url").textContent())!;
  const secret = (await page.getByTestId("endpoint-secret").textContent())!;
  const id = ingestUrl.split("/").at(-1)!;
  expect(id).toMatch(/^ep_/);
  return { id, ingestUrl, secret };
}

/** POSTs a Standard Webhooks request signed by the SDK; answers the stored delivery's id. */
export async function sendWebhook(request: APIRequestContext, endpoint: { ingestUrl: string; secret: string }, payload: unknown): Promise<string> {
  const body = JSON.stringify(payload);
  const id = `msg_${randomBytes(8).toString("hex")}`;
  const at = new Date();
  const response = await request.post(endpoint.ingestUrl, {
    data: body,
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(endpoint.secret).sign(id, at, body),
    },
  });
  expect(response.status(), await response.text()).toBe(200);
  return (await response.json()).id;
}

/** Waits until the destination has received `count` requests. */
export async function receivedAtLeast(destination: TestDestination, count: number): Promise<void> {
  await expect.poll(() => destination.requests.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(count);
}

/** The database the e2e server runs on (written by e2e/serve.ts), for a spec that must hold a lock in it. */
export function e2eDatabaseUrl(): string {
  return readFileSync("e2e/artifacts/e2e-database-url", "utf8").trim();
}
