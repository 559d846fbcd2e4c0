// A big body counts as several requests against its organization's ingest rate (ORG_INGEST_BYTES_PER_REQUEST),
// through the real Next.js server: an organization sending big bodies is refused sooner, and only it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { standardWebhooksHeaders } from "@/test/ingest-requests";
import { startNextServer, type RunningServer } from "@/test/next-server";

const database = useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
let server: RunningServer;

beforeAll(async () => {
  server = await startNextServer({
    databaseUrl: database.url(),
    env: { ORG_INGEST_RATE: "5", ORG_INGEST_BURST: "10", ORG_INGEST_BYTES_PER_REQUEST: String(128 * 1024) },
  });
}, 240_000);
afterAll(async () => {
  await server?.stop();
});

async function swEndpoint(name: string) {
  const org = await createOrganizationFixture(name);
  const endpoint = await createEndpoint({ ctx: org.ctx, input: { name, provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/", maxBodyBytes: 1_048_576 } });
  return { id: endpoint.id, secret: endpoint.secret! };
}

async function post(endpoint: { id: string; secret: string }, body: string) {
  const response = await fetch(`${server.url}/in/${endpoint.id}`, { method: "POST", body, headers: standardWebhooksHeaders(endpoint.secret, body) });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.json() };
}

describe("the ingest rate, counted by body size", () => {
  it("refuses an organization whose big bodies used up its rate, and stores what it admitted, while another's small requests go on", { timeout: 60_000 }, async () => {
    const heavy = await swEndpoint("Heavy bodies");
    const light = await swEndpoint("Light bodies");
    // Four bodies of 600 KiB: each counts as 5 requests, 20 in all against a burst of 10 (and 5 a second).
    const big = (i: number) => JSON.stringify({ type: "big", i, pad: "p".repeat(600 * 1024) });
    const admitted = await Promise.all([0, 1, 2, 3].map((i) => post(heavy, big(i))));
    expect(admitted.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // Four requests taken, sixteen charged for their bodies: the bucket is far below zero for seconds.
    const after = await post(heavy, JSON.stringify({ type: "small" }));
    expect(after.status).toBe(429);
    expect(after.body.error.code).toBe("rate_limited");
    expect(Number(after.retryAfter)).toBeGreaterThanOrEqual(1);
    // The same number of small requests from another organization are all taken.
    const small = await Promise.all(Array.from({ length: 5 }, (_, i) => post(light, JSON.stringify({ type: "small", i }))));
    expect(small.map((r) => r.status)).toEqual(Array(5).fill(200));
    const [{ count }] = await getSql()`select count(*)::int from deliveries where endpoint_id = ${heavy.id}`;
    expect(count).toBe(4);
  });
});
