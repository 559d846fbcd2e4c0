// Issue #12 point 1: a sign-in storm must not slow ingest. 300 parallel sign-ins (right and wrong
// passwords, many accounts, each from its own address so the per-address limit does not simply stop
// them) hit the real server while another organization sends signed webhooks at a steady rate; its
// ingest p99 must stay within 2× of the p99 measured the same way just before, without the storm.
// Solo (run alone after the other files): it asserts a latency under a load it makes itself.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { standardWebhooksHeaders } from "@/test/ingest-requests";
import { startNextServer, type RunningServer } from "@/test/next-server";

const database = useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
const PASSWORD = "a-long-test-password";
const ACCOUNTS = 30;
const STORM = 300;
const INGEST_REQUESTS = 200;
const INGEST_RATE = 50;
/**
 * The sign-ins are sent over 3 s rather than in one instant: a burst of 300 requests of any kind (even
 * GET /api/health) in the same millisecond stalls a Node.js server's one event loop for its whole
 * length, whatever sign-in does. Sent this way they still pile up (each takes far longer than 10 ms to
 * answer when every one runs scrypt), which is the storm that took the shared thread pool.
 */
const STORM_SPREAD_MS = 3_000;
const STORM_STARTS_AFTER_MS = 500;

let server: RunningServer | undefined;
afterAll(async () => {
  await server?.stop();
});

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

/** `count` signed webhooks at `perSecond`, each on time whether or not earlier ones were answered; their latencies. */
async function ingestAtSteadyRate(url: string, secret: string, count: number, perSecond: number, tag: string) {
  const samples: { ms: number; status: number }[] = [];
  const requests: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / perSecond;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    const body = JSON.stringify({ type: "order.created", i });
    const sent = performance.now();
    requests.push(
      fetch(url, { method: "POST", body, headers: standardWebhooksHeaders(secret, body, `${tag}_${i}`) })
        .then(async (response) => {
          await response.arrayBuffer();
          samples.push({ ms: performance.now() - sent, status: response.status });
        })
        .catch(() => void samples.push({ ms: performance.now() - sent, status: 0 })),
    );
  }
  await Promise.all(requests);
  return samples;
}

type Outcome = "signed in" | "wrong" | "busy" | "throttled" | "other";

/**
 * The attackers: a separate process (so their sockets do not share the test's event loop with the
 * ingest it times), sending `count` sign-ins at once through Auth.js, right passwords for one in three,
 * each from its own X-Forwarded-For address; it prints how each was answered.
 */
const STORM_SOURCE = `
const http = require("node:http");
const { url, emails, count, password, spreadMs } = JSON.parse(process.env.STORM);
const base = new URL(url);
// Each of the 300 keeps its connection, as a client sending several requests would.
const agent = new http.Agent({ keepAlive: true, maxSockets: count });
const call = (method, path, headers, body) => new Promise((resolve) => {
  const request = http.request({ host: base.hostname, port: base.port, path, method, headers, agent }, (response) => {
    let text = "";
    response.on("data", (chunk) => (text += chunk));
    response.on("end", () => resolve({ status: response.statusCode, headers: response.headers, text }));
  });
  request.on("error", () => resolve({ status: 0, headers: {}, text: "" }));
  request.end(body);
});
(async () => {
  const csrf = await call("GET", "/api/auth/csrf", {});
  const cookie = (csrf.headers["set-cookie"] || []).map((c) => c.split(";")[0]).join("; ");
  const token = JSON.parse(csrf.text).csrfToken;
  // Ready: the storm starts when the test says so, so this process's own start is not part of it.
  process.stdout.write("ready\\n");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  const codes = { credentials: "wrong", busy: "busy", too_many_attempts: "throttled" };
  let inFlight = 0;
  let mostInFlight = 0;
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: count }, async (_, i) => {
    await new Promise((r) => setTimeout(r, (i * spreadMs) / count));
    mostInFlight = Math.max(mostInFlight, ++inFlight);
    const body = new URLSearchParams({ email: emails[i % emails.length], password: i % 3 === 0 ? password : "wrong-password-" + i, csrfToken: token, callbackUrl: url + "/overview" }).toString();
    const answer = await call("POST", "/api/auth/callback/credentials", { "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body), cookie, "x-forwarded-for": "10.77." + (i >> 8) + "." + (i & 255) }, body);
    inFlight -= 1;
    const location = answer.headers.location || "";
    if (location.endsWith("/overview")) return "signed in";
    return codes[new URL(location || "http://x/").searchParams.get("code")] || "other";
  }));
  const outcomes = { "signed in": 0, wrong: 0, busy: 0, throttled: 0, other: 0 };
  for (const outcome of answers) outcomes[outcome] += 1;
  process.stdout.write(JSON.stringify({ outcomes, mostInFlight, ms: Date.now() - started }) + "\\n");
  agent.destroy();
})();`;

/** Starts the attackers' process; `go()` sends the storm and resolves with how it was answered. */
async function prepareStorm(url: string, emails: string[], count: number, spreadMs: number) {
  const child = spawn(process.execPath, ["-e", STORM_SOURCE], {
    env: { ...process.env, STORM: JSON.stringify({ url, emails, count, password: PASSWORD, spreadMs }) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines: string[] = [];
  let waiting: (() => void) | undefined;
  let buffered = "";
  child.stdout!.on("data", (chunk) => {
    buffered += chunk;
    for (let at = buffered.indexOf("\n"); at >= 0; at = buffered.indexOf("\n")) {
      lines.push(buffered.slice(0, at));
      buffered = buffered.slice(at + 1);
      waiting?.();
    }
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const nextLine = async () => {
    while (lines.length === 0) {
      if (child.exitCode !== null) throw new Error("the storm process exited early");
      await Promise.race([new Promise<void>((resolve) => (waiting = resolve)), exited]);
    }
    return lines.shift()!;
  };
  expect(await nextLine()).toBe("ready");
  return {
    async go(): Promise<{ outcomes: Record<Outcome, number>; mostInFlight: number; ms: number }> {
      child.stdin!.end("go\n");
      const result = JSON.parse(await nextLine());
      await exited;
      return result;
    },
  };
}

describe("300 parallel sign-ins leave another organization's ingest p99 within 2× of idle", () => {
  let ingestUrl = "";
  let secret = "";
  let emails: string[] = [];
  beforeAll(async () => {
    const sender = await createOrganizationFixture("Sender");
    const endpoint = await createEndpoint({ ctx: sender.ctx, input: { name: "Orders", provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/" } });
    secret = endpoint.secret!;
    emails = [];
    for (let i = 0; i < ACCOUNTS; i++) emails.push((await createOrganizationFixture(`Account ${i}`)).email);
    // X-Forwarded-For names each sign-in's address; trusted from loopback once TRUSTED_PROXIES is honoured.
    server = await startNextServer({ databaseUrl: database.url(), env: { AUTH_SECRET: process.env.AUTH_SECRET, TRUSTED_PROXIES: "127.0.0.1/32,::1/128" } });
    ingestUrl = `${server.url}/in/${endpoint.id}`;
  }, 300_000);

  it("keeps ingest p99 under 2× idle while the storm is answered", { timeout: 240_000 }, async () => {
    const url = server!.url;
    // Warm both routes: a fresh server's first answers are not what is measured.
    await ingestAtSteadyRate(ingestUrl, secret, 100, INGEST_RATE, "warm");
    await (await prepareStorm(url, emails.slice(0, 6), 6, 0)).go();

    const idle = await ingestAtSteadyRate(ingestUrl, secret, INGEST_REQUESTS, INGEST_RATE, "idle");

    // The storm starts just after the measured ingest, which runs through it.
    const attackers = await prepareStorm(url, emails, STORM, STORM_SPREAD_MS);
    const measured = ingestAtSteadyRate(ingestUrl, secret, INGEST_REQUESTS, INGEST_RATE, "storm");
    await new Promise((r) => setTimeout(r, STORM_STARTS_AFTER_MS));
    const storm = await attackers.go();
    const during = await measured;
    const outcomes = storm.outcomes;
    const idleP99 = percentile(idle.map((s) => s.ms), 99);
    const stormP99 = percentile(during.map((s) => s.ms), 99);
    console.log(
      `[sign-in storm] ingest p50/p99/max idle ${percentile(idle.map((s) => s.ms), 50).toFixed(1)}/${idleP99.toFixed(1)}/${Math.max(...idle.map((s) => s.ms)).toFixed(1)} ms, ` +
        `during the storm ${percentile(during.map((s) => s.ms), 50).toFixed(1)}/${stormP99.toFixed(1)}/${Math.max(...during.map((s) => s.ms)).toFixed(1)} ms; ` +
        `${STORM} sign-ins sent over ${STORM_SPREAD_MS} ms, up to ${storm.mostInFlight} in flight at once, all answered within ${storm.ms} ms ` +
        `(ingest measured over ${(INGEST_REQUESTS / INGEST_RATE) * 1000} ms from ${STORM_STARTS_AFTER_MS} ms before): ${JSON.stringify(outcomes)}`,
    );
    expect(idle.every((s) => s.status === 200)).toBe(true);
    expect(during.every((s) => s.status === 200)).toBe(true);
    expect(outcomes.other).toBe(0);
    // The storm was real: right passwords signed in, wrong ones were checked and refused.
    expect(outcomes["signed in"]).toBeGreaterThan(0);
    expect(outcomes.wrong).toBeGreaterThan(0);
    expect(stormP99).toBeLessThan(2 * idleP99);
  });
});
