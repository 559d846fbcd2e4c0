// Through the real Next.js server (next start with the peer hook, as npm start runs it): the
// security headers on pages, REST and ingest answers, HSTS only for an https APP_URL, and the
// source address of a refused request: a client's own X-Forwarded-For is stored only when the
// socket peer is a trusted proxy.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { nextStartArgs } from "@/lib/runtime/next-build";
import { freePort, startNextServer, type RunningServer } from "@/test/next-server";

const database = useTestDatabase();
let direct: RunningServer | undefined; // no proxy trusted, APP_URL http
let proxied: RunningServer | undefined; // TRUSTED_PROXIES=127.0.0.1/32, APP_URL https
let endpointId: string;

beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  const org = await createOrganizationFixture();
  endpointId = (await createEndpoint({ ctx: org.ctx, input: { name: "SW", provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/" } })).id;
  direct = await startNextServer({ databaseUrl: database.url(), env: { TRUSTED_PROXIES: "" } });
  proxied = await startNextServer({ databaseUrl: database.url(), env: { TRUSTED_PROXIES: "127.0.0.1/32", APP_URL: "https://inbox.example.test" } });
}, 300_000);
afterAll(async () => {
  await Promise.all([direct?.stop(), proxied?.stop()]);
});

/** The server on 127.0.0.1 (not localhost, which may be ::1), so the socket peer is 127.0.0.1. */
const at = (server: RunningServer | undefined, path: string) => `http://127.0.0.1:${new URL(server!.url).port}${path}`;

describe("security headers on everything the web server answers", () => {
  it("pages carry CSP with frame-ancestors 'none', X-Frame-Options, nosniff and Referrer-Policy, and no HSTS over http", async () => {
    for (const path of ["/login", "/signup", "/", "/endpoints"]) {
      const response = await fetch(at(direct, path), { redirect: "manual" });
      expect(response.status, path).toBeLessThan(500);
      const csp = response.headers.get("content-security-policy");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("default-src 'self'");
      expect(csp, path).toContain("object-src 'none'");
      expect(csp, path).not.toContain("unsafe-eval");
      expect(response.headers.get("x-frame-options"), path).toBe("DENY");
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("referrer-policy"), path).toBe("strict-origin-when-cross-origin");
      expect(response.headers.get("strict-transport-security"), path).toBeNull();
    }
  });

  it("REST JSON, ingest answers and static files carry nosniff too", async () => {
    const rest = await fetch(at(direct, "/api/v1/endpoints"));
    expect(rest.status).toBe(401);
    expect(rest.headers.get("x-content-type-options")).toBe("nosniff");
    const ingest = await fetch(at(direct, `/in/${endpointId}`), { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(ingest.status).toBe(401);
    expect(ingest.headers.get("x-content-type-options")).toBe("nosniff");
    const page = await (await fetch(at(direct, "/login"))).text();
    const script = /src="(\/_next\/static\/[^"]+\.js)"/.exec(page)?.[1];
    expect(script).toBeTruthy();
    const asset = await fetch(at(direct, script!));
    expect(asset.status).toBe(200);
    expect(asset.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("sends HSTS on pages when APP_URL is https", async () => {
    const response = await fetch(at(proxied, "/login"), { redirect: "manual" });
    expect(response.headers.get("strict-transport-security")).toBe("max-age=63072000");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    // Ingest skips proxy.ts (its matcher), so it pays nothing for HSTS; its fixed headers still come.
    const ingest = await fetch(at(proxied, `/in/${endpointId}`), { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(ingest.headers.get("strict-transport-security")).toBeNull();
    expect(ingest.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("the source address of a refused ingest request", () => {
  async function refusedFrom(server: RunningServer | undefined, forwardedFor: string): Promise<string | null> {
    const sql = getSql();
    const before = (await sql`select count(*)::int as n from rejected_requests where endpoint_id = ${endpointId}`)[0]!.n as number;
    const response = await fetch(at(server, `/in/${endpointId}`), { method: "POST", body: "{}", headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor } });
    expect(response.status).toBe(401);
    for (let tries = 0; tries < 100; tries++) {
      // The newest row and the count in one statement (one snapshot): the refusal is recorded after
      // the answer, so two statements could read the previous row and then count the new one.
      const [newest] = await sql`
        select source_ip, (select count(*)::int from rejected_requests where endpoint_id = ${endpointId}) as n
        from rejected_requests where endpoint_id = ${endpointId} order by id desc limit 1`;
      if (newest && (newest.n as number) > before) return newest.source_ip as string | null;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error("the refused request was not recorded");
  }

  it("is the socket peer, not a client's X-Forwarded-For, when no proxy is trusted", async () => {
    expect(await refusedFrom(direct, "6.6.6.6")).toBe("127.0.0.1");
    expect(await refusedFrom(direct, "6.6.6.6, 10.0.0.1")).toBe("127.0.0.1");
  });

  it("would be the client's X-Forwarded-For without the peer hook: Next keeps a header the client sent", async () => {
    // Why the hook exists: Next 16 writes the socket peer only into a request that has no
    // x-forwarded-for. Started without the hook (but told the last entry is the peer), 6.6.6.6 wins.
    const port = await freePort();
    const args = nextStartArgs(process.cwd(), String(port)).filter((arg, index, all) => arg !== "--require" && all[index - 1] !== "--require");
    const child = spawn(process.execPath, args, {
      env: { ...process.env, DATABASE_URL: database.url(), APP_URL: `http://localhost:${port}`, PORT: String(port), INBOX_PEER_ADDRESS_APPENDED: "1", NEXT_TELEMETRY_DISABLED: "1" },
      stdio: "ignore",
    });
    try {
      const bare = { url: `http://localhost:${port}` } as RunningServer;
      for (let tries = 0; ; tries++) {
        if ((await fetch(at(bare, "/api/health")).catch(() => null))?.ok) break;
        if (tries > 300) throw new Error("bare next start did not answer");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await refusedFrom(bare, "6.6.6.6")).toBe("6.6.6.6");
    } finally {
      child.kill();
    }
  });

  it("is the address the trusted proxy (127.0.0.1) names, shown as IPv4 when written IPv4-mapped", async () => {
    expect(await refusedFrom(proxied, "6.6.6.6")).toBe("6.6.6.6");
    expect(await refusedFrom(proxied, "::ffff:198.51.100.2")).toBe("198.51.100.2");
    expect(await refusedFrom(proxied, "6.6.6.6, 203.0.113.7")).toBe("203.0.113.7"); // 6.6.6.6 came from the client, past the untrusted hop
  });
});
