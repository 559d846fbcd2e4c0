// Issue #47 point 2: with the embedded database (what `npm start` tells its children when DATABASE_URL is unset),
// a destination on this machine is accepted and the dashboard says why in a banner; an explicit
// INBOX_ALLOW_PRIVATE_DESTINATIONS=false still refuses it, and then no banner. Through a real Next.js server.
import { afterEach, describe, expect, it } from "vitest";
import { CookieJar, getPage, signInOverHttp } from "@/test/auth-http";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { startNextServer, type RunningServer } from "@/test/next-server";

const database = useTestDatabase();
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function look(env: Record<string, string>) {
  server = await startNextServer({ databaseUrl: database.url(), env: { AUTH_SECRET: process.env.AUTH_SECRET, AUTH_SIGNIN_RATE: "1000", INBOX_ALLOW_PRIVATE_DESTINATIONS: "", ...env } });
  const owner = await createOrganizationFixture();
  const jar = new CookieJar();
  expect((await signInOverHttp(server.url, jar, owner.email, "a-long-test-password")).location).toBe(`${server.url}/overview`);
  const overview = await getPage(server.url, "/overview", jar);
  expect(overview.status).toBe(200);
  const created = await fetch(`${server.url}/api/v1/endpoints`, {
    method: "POST",
    headers: { authorization: `Bearer ${owner.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Local", provider: "none", destinationUrl: "http://127.0.0.1:4000/hook" }),
  });
  return { banner: overview.body.includes('data-testid="private-destinations-banner"'), status: created.status };
}

describe("private destinations with the embedded database", () => {
  it("are allowed by default, and the dashboard says so", async () => {
    expect(await look({ INBOX_EMBEDDED_DATABASE: "true" })).toEqual({ banner: true, status: 201 });
  }, 240_000);

  it("are refused when INBOX_ALLOW_PRIVATE_DESTINATIONS=false says so, and with DATABASE_URL of one's own", async () => {
    expect(await look({ INBOX_EMBEDDED_DATABASE: "true", INBOX_ALLOW_PRIVATE_DESTINATIONS: "false" })).toEqual({ banner: false, status: 400 });
    await server?.stop();
    expect(await look({ INBOX_EMBEDDED_DATABASE: "false" })).toEqual({ banner: false, status: 400 });
  }, 240_000);
});
