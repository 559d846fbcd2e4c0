// The REST API over real HTTP (a server from test/next-server.ts), for the tests that need one; like callRoute
// (test/fixtures.ts), every answer must be one the OpenAPI document describes (test/api-response-check.ts).
import { checkApiAnswer } from "@/test/api-response-check";

export async function fetchApi(baseUrl: string, method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const url = new URL(`/api/v1${path}`, baseUrl);
  const response = await fetch(url, {
    method,
    headers: { ...(options.key ? { authorization: `Bearer ${options.key}` } : {}), ...(options.body === undefined ? {} : { "content-type": "application/json" }), ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const body = text ? JSON.parse(text) : null;
  await checkApiAnswer(method, url.pathname, response.status, body);
  return { status: response.status, headers: response.headers, body };
}
