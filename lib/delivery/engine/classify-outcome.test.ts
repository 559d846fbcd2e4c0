import { describe, expect, it } from "vitest";
import { classifyOutcome } from "./classify-outcome";

const response = (statusCode: number, extra: { retryAfterMs?: number; location?: string } = {}) =>
  classifyOutcome({ kind: "response", statusCode, retryAfterMs: extra.retryAfterMs ?? null, location: extra.location });

describe("delivers on any 2xx", () => {
  it("counts 200, 201, 202 and 204 as delivered", () => {
    for (const code of [200, 201, 202, 204, 299]) expect(response(code)).toEqual({ kind: "delivered" });
  });
});

describe("retries what may pass later", () => {
  it("retries 408, 429 and every 5xx, with the status in the reason", () => {
    for (const code of [408, 429, 500, 502, 503, 504, 599]) {
      const outcome = response(code);
      expect(outcome.kind).toBe("retry");
      if (outcome.kind === "retry") expect(outcome.reason).toContain(`HTTP ${code}`);
    }
  });

  it("passes the destination's Retry-After on", () => {
    expect(response(429, { retryAfterMs: 30_000 })).toMatchObject({ kind: "retry", retryAfterMs: 30_000 });
  });

  it("retries a redirect without following it, naming where it pointed", () => {
    expect(response(302, { location: "http://169.254.169.254/latest" })).toMatchObject({
      kind: "retry",
      reason: expect.stringMatching(/HTTP 302 Found: redirect to http:\/\/169\.254\.169\.254\/latest not followed/),
    });
  });

  it("keeps a redirect's query string (it may hold a token) out of the reason", () => {
    const outcome = response(301, { location: "https://example.com/hook?token=s3cret#x" });
    expect(outcome).toMatchObject({ kind: "retry", reason: "HTTP 301 Moved Permanently: redirect to https://example.com/hook not followed" });
  });

  it("retries timeouts and connection errors", () => {
    expect(classifyOutcome({ kind: "timeout", message: "no answer within 100 ms" })).toMatchObject({ kind: "retry", reason: "no answer within 100 ms" });
    expect(classifyOutcome({ kind: "connection", message: "ECONNREFUSED" })).toMatchObject({ kind: "retry" });
  });
});

describe("buries what cannot pass", () => {
  it("buries 410 at once, saying the destination asked", () => {
    expect(response(410)).toMatchObject({ kind: "dead", reason: expect.stringMatching(/^HTTP 410 Gone/) });
  });

  it("buries every other 4xx at once", () => {
    for (const code of [400, 401, 403, 404, 405, 413, 422, 499]) expect(response(code).kind).toBe("dead");
  });

  it("buries a refused (private) or unusable destination", () => {
    expect(classifyOutcome({ kind: "forbidden_destination", message: "private" })).toEqual({ kind: "dead", reason: "private" });
    expect(classifyOutcome({ kind: "bad_destination", message: "not a URL" })).toEqual({ kind: "dead", reason: "not a URL" });
  });
});

describe("does not blame the destination for our shutdown", () => {
  it("reports an interrupted attempt as such", () => {
    expect(classifyOutcome({ kind: "interrupted", message: "shutdown" })).toEqual({ kind: "interrupted", reason: "shutdown" });
  });
});
