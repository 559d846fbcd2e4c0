// The admission checks through the real Next.js server and real HTTP: that the server hands our
// handler a chunked body as it streams (so its bytes are counted as they arrive, not after Next.js
// buffered them), and that 429 and Retry-After reach the sender.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { standardWebhooksHeaders } from "@/test/ingest-requests";
import { startNextServer, type RunningServer } from "@/test/next-server";

const database = useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
const MiB = 1_048_576;
let server: RunningServer;

beforeAll(async () => {
  server = await startNextServer({
    databaseUrl: database.url(),
    // Every body counts as one request here (ingest-rate-bytes-http.int.test.ts counts them by size): the
    // budget's megabyte uploads must not use up A's rate. A rate of 1 a second: C's 20 requests at once leave at
    // least 5 refused as long as they arrive within 5 s (at 5 a second, within 1 s: 2 refused in a CI run at load ~12).
    env: { INGEST_BODY_BUDGET_BYTES: String(8 * MiB), ORG_INGEST_RATE: "1", ORG_INGEST_BURST: "10", ORG_INGEST_BYTES_PER_REQUEST: String(8 * MiB) },
  });
}, 240_000);
afterAll(async () => {
  await server?.stop();
});

async function swEndpoint(name: string, maxBodyBytes = MiB) {
  const org = await createOrganizationFixture(name);
  const endpoint = await createEndpoint({ ctx: org.ctx, input: { name, provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/", maxBodyBytes } });
  return { id: endpoint.id, secret: endpoint.secret! };
}

async function post(endpoint: { id: string; secret: string }, body: string, id?: string) {
  const response = await fetch(`${server.url}/in/${endpoint.id}`, { method: "POST", body, headers: standardWebhooksHeaders(endpoint.secret, body, id) });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.json() };
}

/** A chunked upload (no Content-Length) over a raw connection: `first` bytes of `whole` now, the rest when told. */
function stalledUpload(endpoint: { id: string; secret: string }, whole: string, first: number, id: string) {
  const url = new URL(`${server.url}/in/${endpoint.id}`);
  const request = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { ...standardWebhooksHeaders(endpoint.secret, whole, id), "transfer-encoding": "chunked" } });
  let status: number | undefined;
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on("response", (response) => {
      status = response.statusCode!;
      let body = "";
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, body }));
    });
    request.on("error", reject);
  });
  request.write(whole.slice(0, first));
  return { answer, answered: () => status !== undefined, finish: () => request.end(whole.slice(first)) };
}

describe("over real HTTP", () => {
  it("counts a chunked upload's bytes as they stream, refusing the uploader mid-body while another organization's small requests succeed", { timeout: 60_000 }, async () => {
    const a = await swEndpoint("HTTP budget A", 4 * MiB);
    const b = await swEndpoint("HTTP budget B");
    // Three uploads stream 1.5 MiB each and stall. Alone, A may hold half the 8 MiB budget: 4.5 MiB cannot all be held,
    // and without a Content-Length only counting the bytes as they arrive can tell.
    const whole = `${"z".repeat(1.5 * MiB)}end`;
    const uploads = [0, 1, 2].map((i) => stalledUpload(a, whole, 1.5 * MiB, `a_stalled_${i}`));
    for (let i = 0; i < 200 && !uploads.some((u) => u.answered()); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    const refused = uploads.filter((u) => u.answered());
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const upload of refused) {
      const { status, body } = await upload.answer;
      expect(status).toBe(429);
      expect(JSON.parse(body).error.code).toBe("too_many_bytes_in_flight");
    }

    // While A's other uploads hold their bytes, B's small requests are untouched.
    const small = await Promise.all(Array.from({ length: 6 }, (_, i) => post(b, JSON.stringify({ type: "small", i }))));
    expect(small.map((r) => r.status)).toEqual(Array(6).fill(200));

    const held = uploads.filter((u) => !refused.includes(u));
    held.forEach((upload) => upload.finish());
    expect((await Promise.all(held.map((upload) => upload.answer))).map((r) => r.status)).toEqual(held.map(() => 200));
    // Every byte was given back: a 3 MiB body from A fits again.
    const big = "d".repeat(3 * MiB);
    expect((await post(a, big)).status).toBe(200);
  });

  it("answers an organization over its rate 429 with Retry-After and stores none of those requests", { timeout: 60_000 }, async () => {
    const c = await swEndpoint("HTTP rate C");
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(c, JSON.stringify({ type: "rate", i }), `c_${i}`)));
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(5);
    for (const r of limited) {
      expect(r.body.error.code).toBe("rate_limited");
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    const [{ count }] = await getSql()`select count(*)::int from deliveries where endpoint_id = ${c.id}`;
    expect(count).toBe(answers.filter((r) => r.status === 200).length);
  });
});
