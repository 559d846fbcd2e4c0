// A sign-in storm against a running web server (issue #12 point 1), shared by the functional test
// (lib/auth/sign-in-storm.solo.int.test.ts) and the benchmark that measures what it does to ingest
// (bench/sign-in-storm/run.ts): a steady signed-ingest sender and a separate attackers' process.
import { spawn } from "node:child_process";
import { standardWebhooksHeaders } from "@/test/ingest-requests";

export const STORM_PASSWORD = "a-long-test-password";

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

/** `count` signed webhooks at `perSecond`, each on time whether or not earlier ones were answered; their latencies. */
export async function ingestAtSteadyRate(url: string, secret: string, count: number, perSecond: number, tag: string) {
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

export type Outcome = "signed in" | "wrong" | "busy" | "throttled" | "other";

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
export async function prepareStorm(url: string, emails: string[], count: number, spreadMs: number) {
  const child = spawn(process.execPath, ["-e", STORM_SOURCE], {
    env: { ...process.env, STORM: JSON.stringify({ url, emails, count, password: STORM_PASSWORD, spreadMs }) },
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
  const ready = await nextLine();
  if (ready !== "ready") throw new Error(`the storm process said ${ready}`);
  return {
    async go(): Promise<{ outcomes: Record<Outcome, number>; mostInFlight: number; ms: number }> {
      child.stdin!.end("go\n");
      const result = JSON.parse(await nextLine());
      await exited;
      return result;
    },
  };
}

