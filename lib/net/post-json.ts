// One guarded JSON POST for what is not a delivery (alert channels): the SSRF rules of destinations at connect
// time (guardedLookup; IP literals checked here, as Node skips the lookup for them), no redirects followed, a
// deadline, and only the first bytes of the answer kept.
import http from "node:http";
import https from "node:https";
import { guardedLookup, literalRefusal } from "./destination-guard";

export interface PostAnswer {
  status: number;
  /** The first 2 KiB of the answer's body. */
  body: string;
}

const KEPT_BYTES = 2048;

/** Answers with the status and body start; rejects on a refused address, a connection error or the deadline. */
export function postJson(input: { url: string; body: string; headers?: Record<string, string>; timeoutMs: number }): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      return reject(new Error("not a valid URL"));
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return reject(new Error(`must be http or https, not ${url.protocol}`));
    const refused = literalRefusal(url.hostname);
    if (refused) return reject(refused);
    const body = Buffer.from(input.body, "utf8");
    const request = (url.protocol === "https:" ? https : http).request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ""),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "WebhookInbox-Alerts/1", ...input.headers, "content-length": String(body.length) },
      lookup: guardedLookup,
    });
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${input.timeoutMs} ms (timeout)`)), input.timeoutMs);
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      response.on("data", (chunk: Buffer) => {
        if (kept < KEPT_BYTES) chunks.push(chunk.subarray(0, KEPT_BYTES - kept));
        kept += chunk.length;
      });
      response.on("end", () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") });
      });
      response.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    request.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(body);
  });
}
