// One HTTP POST to a tenant's destination, with node:http(s): the SSRF guard at connect time
// (guardedLookup, and IP literals checked here since they skip DNS), no redirects followed, one
// deadline for connect + answer, and the first 4 KiB of the answer kept, with its headers' first 8 KiB.
import http from "node:http";
import https from "node:https";
import { ValidationError } from "@/lib/errors";
import { guardedLookup, literalRefusal } from "@/lib/net/destination-guard";
import type { SendResult } from "./classify-outcome";
import { parseRetryAfterMs } from "./retry-schedule";

export const RESPONSE_SNIPPET_BYTES = 4096;
/** An answer's headers are kept up to this many bytes of names and values; the rest are left out. */
export const RESPONSE_HEADER_BYTES = 8192;
/** Past this, the rest of an answer is not read; the socket is closed instead of reused. */
const DRAIN_LIMIT_BYTES = 1024 * 1024;

// Keep-alive: a busy destination reuses its connections. Idle sockets close after 4 s, or sooner when
// the server's Keep-Alive hint says so, so that a socket the server already closed is rarely reused.
const agents = {
  "http:": new http.Agent({ keepAlive: true, timeout: 4_000, maxFreeSockets: 256, scheduling: "lifo" }),
  "https:": new https.Agent({ keepAlive: true, timeout: 4_000, maxFreeSockets: 256, scheduling: "lifo" }),
};

export interface SendOutput {
  result: SendResult;
  /** The first 4 KiB of the answer's body, as text (NUL removed: PostgreSQL text cannot hold it). */
  responseBody: string | null;
  /** The answer's headers (a repeated one's values joined by ", "), the first RESPONSE_HEADER_BYTES; null when none came. */
  responseHeaders?: Record<string, string> | null;
  durationMs: number;
}

export interface SendInput {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  /** Aborts the request (worker shutdown); the result is then `interrupted`. */
  signal?: AbortSignal;
}

// graphile-worker hands every job the pool's one AbortSignal: one listener per signal, fanned out
// to the requests in flight, instead of one listener per request (Node warns past ten).
const abortCallbacks = new WeakMap<AbortSignal, Set<() => void>>();
function whenAborted(signal: AbortSignal, callback: () => void): () => void {
  let callbacks = abortCallbacks.get(signal);
  if (!callbacks) {
    const set = new Set<() => void>();
    callbacks = set;
    abortCallbacks.set(signal, set);
    signal.addEventListener("abort", () => set.forEach((fn) => fn()), { once: true });
  }
  callbacks.add(callback);
  return () => callbacks.delete(callback);
}

class SendError extends Error {
  constructor(
    readonly kind: Exclude<SendResult["kind"], "response">,
    message: string,
  ) {
    super(message);
  }
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  const code = error.code ? `${error.code}: ` : "";
  return `connection failed (${code}${error.message})`.slice(0, 1000);
}

/** rawHeaders (name, value, name, value, …) as an object, lower-cased names, until RESPONSE_HEADER_BYTES are used. */
function keptHeaders(raw: string[]): Record<string, string> {
  const kept: Record<string, string> = {};
  let used = 0;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const [name, value] = [raw[i]!.toLowerCase(), raw[i + 1]!.replaceAll("\u0000", "")];
    used += Buffer.byteLength(name) + Buffer.byteLength(value);
    if (used > RESPONSE_HEADER_BYTES) break;
    kept[name] = name in kept ? `${kept[name]}, ${value}` : value;
  }
  return kept;
}

function snippet(chunks: Buffer[]): string | null {
  if (chunks.length === 0) return null;
  return Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET_BYTES).toString("utf8").replaceAll("\u0000", "");
}

/** Sends once; never throws. A reused keep-alive socket the server had closed is retried once at once. */
export async function sendToDestination(input: SendInput): Promise<SendOutput> {
  const started = performance.now();
  const deadline = Date.now() + input.timeoutMs;
  let output = await sendOnce(input, deadline);
  if (output.retryable) output = await sendOnce(input, deadline);
  return { result: output.result, responseBody: output.responseBody, responseHeaders: output.responseHeaders, durationMs: Math.round(performance.now() - started) };
}

function refusedUrl(rawUrl: string): { url: URL } | { error: SendError } {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    // Not quoted back: a malformed URL may still carry credentials.
    return { error: new SendError("bad_destination", "The destination URL is not a valid URL.") };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { error: new SendError("bad_destination", `The destination URL must be http or https, not ${url.protocol}`) };
  }
  // Node never calls `lookup` for an IP-literal host, so guardedLookup cannot see these.
  const refused = literalRefusal(url.hostname);
  if (refused) return { error: new SendError("forbidden_destination", refused.message) };
  return { url };
}

type SentOnce = { result: SendResult; responseBody: string | null; responseHeaders: Record<string, string> | null; retryable: boolean };

function sendOnce(input: SendInput, deadline: number): Promise<SentOnce> {
  return new Promise((resolve) => {
    const checked = refusedUrl(input.url);
    if ("error" in checked) return resolve({ result: { kind: checked.error.kind, message: checked.error.message }, responseBody: null, responseHeaders: null, retryable: false });
    if (input.signal?.aborted) {
      return resolve({ result: { kind: "interrupted", message: "the worker shut down before the attempt" }, responseBody: null, responseHeaders: null, retryable: false });
    }
    const { url } = checked;
    const protocol = url.protocol as "http:" | "https:";
    let settled = false;
    let answer: Extract<SendResult, { kind: "response" }> | undefined;
    let responseHeaders: Record<string, string> | null = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    let forgetAbort = () => {};

    const finish = (result: SendResult, retryable = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      forgetAbort();
      resolve({ result, responseBody: snippet(chunks), responseHeaders, retryable });
    };

    const request = (protocol === "https:" ? https : http).request({
      protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ""),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: "POST",
      headers: { ...input.headers, "content-length": String(input.body.length) },
      agent: agents[protocol],
      lookup: guardedLookup,
      // Credentials in the URL (https://user:pass@host/) become Basic auth, as in curl.
      auth: url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
    });

    // Once the status line is in, a slow body does not change the outcome: keep what arrived.
    const timer = setTimeout(() => {
      if (answer) finish(answer);
      else finish({ kind: "timeout", message: `no answer within ${input.timeoutMs} ms (timeout)` });
      request.destroy();
    }, Math.max(0, deadline - Date.now()));

    const onAbort = () => {
      if (answer) finish(answer);
      else finish({ kind: "interrupted", message: "the worker shut down during the attempt" });
      request.destroy();
    };
    if (input.signal) forgetAbort = whenAborted(input.signal, onAbort);

    request.on("error", (error: NodeJS.ErrnoException) => {
      if (answer) return finish(answer);
      // guardedLookup refuses a private address with a ValidationError, which net passes on as is.
      if (error instanceof ValidationError) return finish({ kind: "forbidden_destination", message: error.message });
      // A keep-alive socket closed by the server just as we reused it: nothing reached the destination.
      const stale = request.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE");
      finish({ kind: "connection", message: describeNetworkError(error) }, stale);
    });

    request.on("response", (response) => {
      responseHeaders = keptHeaders(response.rawHeaders);
      answer = {
        kind: "response",
        statusCode: response.statusCode ?? 0,
        retryAfterMs: parseRetryAfterMs(response.headers["retry-after"], new Date()),
        location: typeof response.headers.location === "string" ? response.headers.location : undefined,
      };
      let read = 0;
      response.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (kept < RESPONSE_SNIPPET_BYTES) {
          chunks.push(chunk);
          kept += chunk.length;
        }
        if (read > DRAIN_LIMIT_BYTES) {
          finish(answer!);
          request.destroy();
        }
      });
      response.on("end", () => finish(answer!));
      response.on("error", () => finish(answer!));
      response.on("aborted", () => finish(answer!));
    });

    request.end(input.body);
  });
}
