// The fuzz suite (issue #12, item 8): ≥ 10,000 malformed requests from a seeded generator
// (test/fuzz/fuzz-requests.ts) to ingest — endpoints of seven providers — and to every /api/v1 route,
// with a valid key and with bad ones, through the real server: fetch for most, raw sockets for header
// floods, broken framing and invalid bytes, and a few slow senders abandoned after a short deadline.
// With the store up, no answer may be a 5xx, the server must survive (same PID, health 200), and
// nothing may be stored. FUZZ_SEED and FUZZ_REQUESTS override the seed and the count.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { revokeApiKey } from "@/lib/api-keys/revoke-api-key";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { createDeliveryFixture } from "@/test/delivery-fixtures";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { startNextServer, type RunningServer } from "@/test/next-server";
import { makeGenerator, type FuzzRequest, type FuzzTargets } from "./fuzz-requests";

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_201);
const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const CONCURRENCY = 32;
const SLOW_SENDERS = 6;

const database = useTestDatabase();
let server: RunningServer | undefined;
let targets: FuzzTargets;

beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true"; // for the fixtures made here; the server refuses them
  const org = await createOrganizationFixture("Fuzz");
  const other = await createOrganizationFixture("Other");
  const { apiKey: revokedApiKey } = await createApiKey({ ctx: org.ctx, input: { name: "revoked" } });
  const [revoked] = await getSql()`select id from api_keys where organization_id = ${org.organizationId} and name = 'revoked'`;
  await revokeApiKey({ ctx: org.ctx, input: { id: revoked!.id } });
  const endpoints: Record<string, string> = {};
  const secrets: Record<string, Record<string, unknown>> = {
    "standard-webhooks": {}, stripe: { secret: "whsec_fuzz" }, github: { secret: "gh-fuzz" }, shopify: { secret: "shp-fuzz" }, slack: { secret: "slack-fuzz" },
    "generic-hmac": { secret: "hmac-fuzz", genericHmac: { header: "x-sig", idHeader: "x-event-id" } }, none: {},
  };
  for (const [provider, extra] of Object.entries(secrets)) {
    const endpoint = await createEndpoint({ ctx: org.ctx, input: { name: `fuzz ${provider}`, provider, destinationUrl: "http://127.0.0.1:9/fuzz", maxBodyBytes: 4096, ...extra } });
    endpoints[provider] = endpoint.id;
  }
  const { id: deliveryId } = await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoints.stripe! });
  server = await startNextServer({
    databaseUrl: database.url(),
    env: { ORG_INGEST_RATE: "1000000", ORG_INGEST_BURST: "1000000", INBOX_ALLOW_PRIVATE_DESTINATIONS: "false" },
  });
  targets = { baseUrl: server.url.replace("localhost", "127.0.0.1"), apiKey: org.apiKey, otherApiKey: other.apiKey, revokedApiKey, endpoints, deliveryId };
}, 300_000);

afterAll(async () => {
  await server?.stop();
});

type Outcome = { status: number | "no answer" | "abandoned by us"; request: FuzzRequest };

async function viaFetch(request: Extract<FuzzRequest, { via: "fetch" }>): Promise<Outcome> {
  try {
    const response = await fetch(`${targets.baseUrl}${request.path}`, {
      method: request.method,
      // fetch sends header values as bytes 0–255 only; raw sockets send the rest.
      headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, /[^\x00-\xff]/.test(value) ? encodeURIComponent(value) : value])),
      body: request.body as BodyInit | undefined,
      redirect: "manual",
      signal: AbortSignal.timeout(20_000),
    });
    await response.arrayBuffer().catch(() => {});
    return { status: response.status, request };
  } catch {
    return { status: "no answer", request };
  }
}

/** Writes the bytes (dribbled, when asked) and reads the status line; Connection: close ends each. */
function viaSocket(request: Extract<FuzzRequest, { via: "raw" }>): Promise<Outcome> {
  const { port } = new URL(targets.baseUrl);
  return new Promise((resolve) => {
    let received = "";
    let settled = false;
    const socket = net.connect(Number(port), "127.0.0.1");
    const finish = (status: Outcome["status"]) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearInterval(dribble);
      socket.destroy();
      resolve({ status, request });
    };
    const parsed = () => {
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(received);
      return match ? Number(match[1]) : "no answer";
    };
    let dribble: NodeJS.Timeout | undefined;
    socket.on("connect", () => {
      socket.write(request.bytes);
      if (request.dribbleMs) dribble = setInterval(() => socket.write("a"), 100);
    });
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (/^HTTP\/1\.[01] (1\d\d)/.test(received) && received.includes("\r\n\r\n") && !/\r\n\r\n[\s\S]*HTTP\/1/.test(received)) {
        received = received.slice(received.indexOf("\r\n\r\n") + 4); // 100 Continue: the real answer follows
      }
      if (/^HTTP\/1\.[01] [2-5]\d\d/.test(received)) finish(parsed());
    });
    socket.on("error", () => finish(parsed()));
    socket.on("close", () => finish(parsed()));
    const deadline = setTimeout(() => finish(request.dribbleMs ? "abandoned by us" : parsed()), request.dribbleMs ?? 10_000);
  });
}

async function counts() {
  const [row] = await getSql()`select
    (select count(*)::int from deliveries) as deliveries, (select count(*)::int from endpoints) as endpoints,
    (select count(*)::int from api_keys) as api_keys, (select count(*)::int from attempts) as attempts,
    (select md5(string_agg(e::text, ',' order by e.id)) from endpoints e) as endpoints_digest,
    -- An endpoint's destinationUrl, paused, retries and outbound secret are its default destination's.
    (select md5(string_agg(x::text, ',' order by x.id)) from destinations x) as destinations_digest,
    (select md5(string_agg(o::text, ',' order by o.id)) from organizations o) as organizations_digest,
    (select md5(string_agg(d.id || d.status || d.updated_at::text, ',' order by d.id)) from deliveries d) as deliveries_digest`;
  return row;
}

describe("fuzzing ingest and every /api/v1 route with malformed requests", () => {
  it(`answers ${TOTAL}+ of them without a 5xx, survives, and stores nothing`, async () => {
    const before = await counts();
    const generator = makeGenerator(SEED, targets);
    const requests = Array.from({ length: TOTAL }, (_, index) => generator.next(index));
    const slow = Array.from({ length: SLOW_SENDERS }, (_, index) => generator.slowRequest(index));
    console.log(`[fuzz] seed ${SEED} (FUZZ_SEED=${SEED} reproduces), ${requests.length} requests + ${slow.length} slow senders, concurrency ${CONCURRENCY}`);

    const started = Date.now();
    const outcomes: Outcome[] = [];
    const slowDone = Promise.all(slow.map((request) => viaSocket(request as Extract<FuzzRequest, { via: "raw" }>)));
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) {
        const request = requests[next++]!;
        outcomes.push(await (request.via === "fetch" ? viaFetch(request) : viaSocket(request)));
      }
    }));
    outcomes.push(...(await slowDone));
    const seconds = (Date.now() - started) / 1000;

    const byStatus = new Map<string, number>();
    const byFamily = new Map<string, Map<string, number>>();
    for (const { status, request } of outcomes) {
      byStatus.set(String(status), (byStatus.get(String(status)) ?? 0) + 1);
      const family = byFamily.get(request.family) ?? new Map<string, number>();
      family.set(String(status), (family.get(String(status)) ?? 0) + 1);
      byFamily.set(request.family, family);
    }
    const show = (map: Map<string, number>) => [...map].sort().map(([status, n]) => `${status}×${n}`).join(" ");
    console.log(`[fuzz] ${outcomes.length} requests in ${seconds.toFixed(1)} s: ${show(byStatus)}`);
    for (const [family, statuses] of [...byFamily].sort()) console.log(`[fuzz]   ${family}: ${show(statuses)}`);

    const explain = ({ status, request }: Outcome) =>
      request.via === "fetch"
        ? `${status} ${request.family}: ${request.method} ${request.path.slice(0, 200)} ${JSON.stringify(request.headers).slice(0, 300)} body ${typeof request.body === "string" ? JSON.stringify(request.body.slice(0, 200)) : `${request.body?.byteLength ?? 0} bytes`}`
        : `${status} ${request.family}: ${JSON.stringify(request.bytes.subarray(0, 200).toString("latin1"))}`;
    // For the record: what a malformed request may still be answered 2xx for (reads, a refused bulk dry run, OPTIONS).
    const changes = outcomes.filter(({ status, request }) => typeof status === "number" && status < 300 && request.via === "fetch" && !["GET", "HEAD", "OPTIONS"].includes(request.method));
    for (const outcome of changes.slice(0, 10)) console.log(`[fuzz] 2xx to a ${outcome.request.via === "fetch" ? outcome.request.method : ""}: ${explain(outcome)}`);
    const serverErrors = outcomes.filter(({ status }) => typeof status === "number" && status >= 500);
    // fetch gets an answer to everything but an upload the server refused (413) while it was still being sent.
    const unanswered = outcomes.filter(({ status, request }) => status === "no answer" && request.via === "fetch" && !request.mayDrop);
    expect(serverErrors.map(explain).slice(0, 20), `${serverErrors.length} answers were 5xx`).toEqual([]);
    expect(unanswered.map(explain).slice(0, 20), `${unanswered.length} fetch requests got no answer`).toEqual([]);

    // Survived: the same process answers, healthy.
    expect(server!.child.exitCode).toBeNull();
    const health = await fetch(`${targets.baseUrl}/api/health`);
    expect(health.status).toBe(200);
    const stillServes = await fetch(`${targets.baseUrl}/api/v1/endpoints`, { headers: { authorization: `Bearer ${targets.apiKey}` } });
    expect(stillServes.status).toBe(200);

    // Nothing stored, nothing changed.
    const after = await counts();
    if (after!.deliveries !== before!.deliveries) {
      const stored = await getSql()`select d.external_id, p.headers, e.provider, encode(substr(p.body, 1, 100), 'escape') as body
        from deliveries d join endpoints e on e.id = d.endpoint_id join delivery_payloads p on p.delivery_id = d.id where d.id <> ${targets.deliveryId} limit 5`;
      console.log(`[fuzz] stored although it should not have been: ${JSON.stringify(stored).slice(0, 3000)}`);
    }
    expect(after).toEqual(before);
    expect(outcomes.length).toBeGreaterThanOrEqual(10_000);
  }, 240_000);
});
