// Open-loop load: signed webhooks sent on a fixed schedule (request i due at start + i / rate),
// whether or not earlier ones have been answered, so a slow server meets the offered rate rather
// than slowing the sender down (a closed loop like autocannon's measures how fast the server answers
// N connections, not whether it keeps up with a rate). Latency is counted from each request's due
// time, so time spent waiting for a free socket or a late timer is in it; how late the sender itself
// was, and how long requests waited for a socket, are reported apart.
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
  /** Requests in flight at most (one socket each); more wait for one, and that wait is in their latency. */
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
  /** How late the sender queued each request after its due time, ms: its own lag. */
  lateness: { p50: number; p99: number; max: number };
  /** How long requests waited for one of the `maxSockets` to go, ms: the server not keeping up. */
  socketWait: { p50: number; p99: number; max: number };
  /** Delivery ids of the counted 200s. */
  acknowledged: string[];
  /** epochNow() of the first counted request's due time, the last request's due time, the last answer. */
  firstDueAt: number;
  lastDueAt: number;
  lastAnswerAt: number;
}

export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const { rate, seconds, tag, settleSeconds = 0, timeoutMs = 30_000 } = options;
  const targets = options.targets.map(({ url, secret }) => ({ url: new URL(url), webhook: new Webhook(secret) }));
  const maxInFlight = options.maxSockets ?? 256;
  const agent = new http.Agent({ keepAlive: true, maxSockets: maxInFlight });
  const total = Math.round((seconds + settleSeconds) * rate);
  const uncounted = Math.round(settleSeconds * rate);
  const dueAt = (i: number) => start + (i * 1000) / rate;
  const latencies: number[] = [];
  const lateness: number[] = [];
  const socketWaits: number[] = [];
  const failures: Record<string, number> = {};
  const acknowledged: string[] = [];
  let lastAnswerAt = 0;
  // Due requests wait here for a free socket, unsigned: signed when they go, so that a long wait
  // cannot make their timestamp stale (a 401) and their send time is when they really left.
  const queuedAt: number[] = []; // by request number
  let nextToSend = 0;
  let inFlight = 0;
  let allAnswered: () => void = () => {};
  const answered = new Promise<void>((resolve) => (allAnswered = resolve));
  let finished = 0;
  const start = epochNow();

  const dispatch = (i: number, queued: number) => {
    const counted = i >= uncounted;
    const target = targets[i % targets.length]!;
    const { body, headers } = signedWebhook(target.webhook, `${tag}_${i}_${randomBytes(4).toString("hex")}`);
    const sentAt = epochNow();
    if (counted) socketWaits.push(sentAt - queued);
    inFlight++;
    let over = false;
    const done = (outcome: string, id?: string) => {
      if (over) return; // a reset after the answer, say
      over = true;
      const at = epochNow();
      if (counted) {
        if (outcome === "200" && id) {
          latencies.push(at - dueAt(i));
          acknowledged.push(id);
        } else failures[outcome] = (failures[outcome] ?? 0) + 1;
        lastAnswerAt = Math.max(lastAnswerAt, at);
      }
      inFlight--;
      if (++finished === total) allAnswered();
      pump();
    };
    const request = http.request({
      host: target.url.hostname, port: target.url.port, path: target.url.pathname, method: "POST", agent, timeout: timeoutMs,
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)), [SENT_AT_HEADER]: sentAt.toFixed(3) },
    }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("error", (error) => done(error.message));
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
  };
  const pump = () => {
    for (; inFlight < maxInFlight && nextToSend < queuedAt.length; nextToSend++) dispatch(nextToSend, queuedAt[nextToSend]!);
  };

  // Wake every millisecond or so and queue whatever has come due: at thousands a second, timers
  // per request would be late by more than the gap between requests.
  for (let next = 0; next < total; ) {
    const now = epochNow();
    for (; next < total && dueAt(next) <= now; next++) {
      if (next >= uncounted) lateness.push(now - dueAt(next));
      queuedAt.push(now);
    }
    pump();
    if (next < total) await new Promise((resolve) => setTimeout(resolve, Math.min(1, Math.max(0, dueAt(next) - epochNow()))));
  }
  if (total > 0) await answered;
  agent.destroy();
  return {
    sent: total - uncounted,
    ok: acknowledged.length,
    failures,
    latency: summarize(latencies),
    lateness: summarize(lateness),
    socketWait: summarize(socketWaits),
    acknowledged,
    firstDueAt: start + (uncounted * 1000) / rate,
    lastDueAt: start + ((total - 1) * 1000) / rate,
    lastAnswerAt,
  };
}
