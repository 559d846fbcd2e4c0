// Open-loop load: signed webhooks sent on a fixed schedule (request i due at start + i / rate),
// whether or not earlier ones have been answered, so a slow server meets the offered rate rather
// than slowing the sender down (a closed loop like autocannon's measures how fast the server answers
// N connections, not whether it keeps up with a rate). Latency is counted from each request's due
// time, so time spent waiting for a free socket or a late timer is in it; how late the sender itself
// was is reported apart, to show whether it kept up.
import { randomBytes } from "node:crypto";
import http from "node:http";
import { Webhook } from "standardwebhooks";
import { SENT_AT_HEADER } from "./destination";
import { signedWebhook } from "./signed-webhook";
import { epochNow, summarize } from "./stats";

export interface OpenLoopOptions {
  /** Ingest URLs and their endpoints' secrets, taken in turn. */
  targets: { url: string; secret: string }[];
  /** Requests per second, all targets together. */
  rate: number;
  seconds: number;
  /** Prefix of the webhook ids (unique per run). */
  tag: string;
  /** Requests due in the first seconds are sent but not counted (connections opening, a flood ramping up). */
  settleSeconds?: number;
  /** Sockets at most; more requests in flight wait for one (and that wait is in their latency). */
  maxSockets?: number;
  timeoutMs?: number;
}

export interface OpenLoopResult {
  /** Counted requests (after the settle seconds). */
  sent: number;
  ok: number;
  /** Non-200 answers and errors, by status code or message. */
  failures: Record<string, number>;
  /** Due time to answer, ms, of counted 200s. */
  latency: { p50: number; p99: number; max: number };
  /** How late the sender called each request after its due time, ms: its own lag. */
  lateness: { p50: number; p99: number; max: number };
  /** Delivery ids of the counted 200s. */
  acknowledged: string[];
  /** epochNow() of the first counted request's due time, the last request's due time, the last answer. */
  firstDueAt: number;
  lastDueAt: number;
  lastAnswerAt: number;
}

export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const { rate, seconds, tag, settleSeconds = 0, timeoutMs = 30_000 } = options;
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 256 });
  const targets = options.targets.map(({ url, secret }) => ({ url: new URL(url), webhook: new Webhook(secret) }));
  const total = Math.round((seconds + settleSeconds) * rate);
  const uncounted = Math.round(settleSeconds * rate);
  const latencies: number[] = [];
  const lateness: number[] = [];
  const failures: Record<string, number> = {};
  const acknowledged: string[] = [];
  let lastAnswerAt = 0;
  const answers: Promise<void>[] = [];
  const start = epochNow();

  const send = (i: number, due: number) => {
    const counted = i >= uncounted;
    const target = targets[i % targets.length]!;
    const { body, headers } = signedWebhook(target.webhook, `${tag}_${i}_${randomBytes(4).toString("hex")}`);
    const sentAt = epochNow();
    if (counted) lateness.push(sentAt - due);
    answers.push(new Promise<void>((resolve) => {
      const done = (outcome: string, id?: string) => {
        const at = epochNow();
        if (counted) {
          if (outcome === "200" && id) {
            latencies.push(at - due);
            acknowledged.push(id);
          } else failures[outcome] = (failures[outcome] ?? 0) + 1;
          lastAnswerAt = Math.max(lastAnswerAt, at);
        }
        resolve();
      };
      const request = http.request({
        host: target.url.hostname, port: target.url.port, path: target.url.pathname, method: "POST", agent, timeout: timeoutMs,
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)), [SENT_AT_HEADER]: sentAt.toFixed(3) },
      }, (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => {
          if (response.statusCode !== 200) return done(String(response.statusCode));
          try {
            done("200", (JSON.parse(text) as { id?: string }).id);
          } catch {
            done("200 without an id");
          }
        });
      });
      request.on("timeout", () => request.destroy(new Error("timeout")));
      request.on("error", (error) => done(error.message));
      request.end(body);
    }));
  };

  // Wake every millisecond or so and send whatever has come due: at thousands a second, timers
  // per request would be late by more than the gap between requests.
  for (let next = 0; next < total; ) {
    const now = epochNow();
    for (; next < total && start + (next * 1000) / rate <= now; next++) send(next, start + (next * 1000) / rate);
    if (next < total) await new Promise((resolve) => setTimeout(resolve, Math.min(1, Math.max(0, start + (next * 1000) / rate - epochNow()))));
  }
  await Promise.all(answers);
  agent.destroy();
  return {
    sent: total - uncounted,
    ok: acknowledged.length,
    failures,
    latency: summarize(latencies),
    lateness: summarize(lateness),
    acknowledged,
    firstDueAt: start + (uncounted * 1000) / rate,
    lastDueAt: start + ((total - 1) * 1000) / rate,
    lastAnswerAt,
  };
}
