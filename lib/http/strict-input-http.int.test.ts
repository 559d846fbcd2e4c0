// Strict input through the real server (API.md "Tenancy"): what the review found answered 500 — a NUL
// in q, eventType, a path id or a name, a crafted cursor, a malformed percent-encoding — gets 400 (or
// 404 for a path id that is not ours) from REST, and a "not valid" message or 404 from the dashboard.
// Last, the database stops taking connections: REST answers 503 with Retry-After, then recovers.
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { runFormAction } from "@/lib/auth/form-action";
import { getSql } from "@/db";
import { newId } from "@/lib/ids";
import { checkApiAnswer } from "@/test/api-response-check";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { signInCookie } from "@/test/fuzz/dashboard-session";
import { startNextServer, type RunningServer } from "@/test/next-server";

const database = useTestDatabase();
let server: RunningServer | undefined;
let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
let cookie = "";
beforeAll(async () => {
  org = await createOrganizationFixture();
  server = await startNextServer({ databaseUrl: database.url() });
  cookie = await signInCookie(server.url, org.email, "a-long-test-password");
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

const crafted = Buffer.from(JSON.stringify(["1", "x"])).toString("base64url");

async function rest(path: string, init: RequestInit = {}) {
  const response = await fetch(`${server!.url}${path}`, { ...init, headers: { authorization: `Bearer ${org.apiKey}`, "content-type": "application/json", ...init.headers } });
  const text = await response.text();
  const body = text.startsWith("{") ? JSON.parse(text) : text;
  const { pathname } = new URL(path, server!.url);
  if (pathname.startsWith("/api/v1/")) await checkApiAnswer(init.method ?? "GET", pathname, response.status, body);
  return { status: response.status, headers: response.headers, body };
}

async function page(path: string) {
  const response = await fetch(`${server!.url}${path}`, { headers: { cookie }, redirect: "manual" });
  return { status: response.status, html: await response.text() };
}

describe("the REST API refuses malformed input with 4xx, never 500", () => {
  it("a control character in q, eventType, a path id or a JSON field: 400", async () => {
    for (const path of ["/api/v1/deliveries?q=%00", "/api/v1/deliveries?eventType=%00", "/api/v1/deliveries/a%00b", "/api/v1/endpoints/a%00b/stats"]) {
      const res = await rest(path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
    }
    const created = await rest("/api/v1/endpoints", { method: "POST", body: JSON.stringify({ name: "a\u0000b", provider: "none", destinationUrl: "http://127.0.0.1:9/" }) });
    expect(created.status).toBe(400);
  });

  it("a crafted cursor: 400 on both lists", async () => {
    for (const path of [`/api/v1/deliveries?cursor=${crafted}`, `/api/v1/endpoints?cursor=${crafted}`, `/api/v1/deliveries?q=x&cursor=${crafted}`]) {
      const res = await rest(path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.message).toMatch(/cursor/);
    }
  });

  it("a path id not in our format: 404 without a query; a malformed percent-encoding: 400", async () => {
    for (const path of ["/api/v1/deliveries/garbage", `/api/v1/deliveries/${newId("ep")}`, "/api/v1/endpoints/ep_x'%3B--", `/api/v1/endpoints/${newId("ep")}XX/stats`]) {
      expect((await rest(path)).status, path).toBe(404);
    }
    expect((await rest("/api/v1/deliveries/garbage/replay", { method: "POST" })).status).toBe(404);
    for (const path of ["/api/v1/deliveries/%ZZ", "/api/v1/endpoints/%E0%A4%A", "/in/%ZZ", "/in/%C0%80"]) {
      const res = await rest(path, { method: path.startsWith("/in/") ? "POST" : "GET" });
      expect(res.status, path).toBe(400);
    }
    const ingest = await rest("/in/a%00b", { method: "POST", body: "{}" });
    expect(ingest.status).toBe(404);
  });
});

describe("the dashboard shows 'not valid' or 404 for malformed input, never a 500", () => {
  it("search parameters with a control character or a crafted cursor get a message on the page", async () => {
    for (const [path, message] of [
      ["/deliveries?q=%00", /contains a control character/],
      ["/deliveries?eventType=%00", /contains a control character/],
      [`/deliveries?cursor=${crafted}`, /cursor is not one this API gave out/],
      ["/deliveries?since=yesterday", /must be an ISO 8601 time/],
    ] as const) {
      const res = await page(path);
      expect(res.status, path).toBe(200);
      expect(res.html, path).toMatch(message);
    }
  });

  it("a delivery or endpoint id that is not ours is a 404 page", async () => {
    for (const path of ["/deliveries/a%00b", "/deliveries/garbage", `/deliveries/${newId("dlv")}`, "/endpoints/a%00b", "/endpoints/ep_%27%22%3B--"]) {
      expect((await page(path)).status, path).toBe(404);
    }
    expect((await page("/deliveries/%ZZ")).status).toBe(400);
  });
});

describe("while the database refuses connections", () => {
  it("REST answers 503 with Retry-After, a dashboard action says temporarily unavailable, and both recover without a restart", async () => {
    expect((await rest("/api/v1/endpoints")).status).toBe(200);
    const name = new URL(database.url()).pathname.slice(1);
    const admin = postgres(inject("adminUrl"), { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`alter database "${name}" allow_connections false`);
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
      for (const path of ["/api/v1/endpoints", "/api/v1/deliveries?q=x", `/api/v1/endpoints/${newId("ep")}`]) {
        const res = await rest(path);
        expect(res.status, path).toBe(503);
        expect(res.headers.get("retry-after")).toBe("5");
        expect(res.body.error.code).toBe("service_unavailable");
      }
      const created = await rest("/api/v1/endpoints", { method: "POST", body: JSON.stringify({ name: "n", provider: "none", destinationUrl: "http://127.0.0.1:9/" }) });
      expect(created.status).toBe(503);
      // The dashboard's form actions share runFormAction; this process's pool is cut off too.
      const state = await runFormAction(async () => (await getSql()`select 1`, { ok: true }));
      expect(state.error).toMatch(/temporarily unavailable/);
    } finally {
      await admin.unsafe(`alter database "${name}" allow_connections true`);
      await admin.end();
    }
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (Date.now() < deadline && (status = (await rest("/api/v1/endpoints")).status) !== 200) await new Promise((r) => setTimeout(r, 200));
    expect(status).toBe(200);
  }, 60_000);
});
