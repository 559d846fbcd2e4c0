import { randomBytes } from "node:crypto";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { createCtx } from "@/lib/context";
import { createOrganizationWithOwner } from "@/lib/organizations/create-organization-with-owner";
import { checkApiResponse } from "@/test/api-response-check";

process.env.AUTH_SECRET ??= "test-auth-secret-not-for-production";
process.env.APP_URL ??= "http://inbox.test";

/** A fresh organization with an owner and an API key; each test makes its own. */
export async function createOrganizationFixture(name = "Acme") {
  const email = `owner-${randomBytes(6).toString("hex")}@example.test`;
  const { organizationId, userId } = await createOrganizationWithOwner({ email, password: "a-long-test-password", organizationName: name });
  const ctx = createCtx(organizationId, { type: "user", userId, role: "owner" });
  const { apiKey } = await createApiKey({ ctx, input: { name: "test", role: "owner" } });
  return { organizationId, userId, email, apiKey, ctx };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- route handlers type their own params
type RouteHandler = (request: Request, context: { params: Promise<any> }) => Promise<Response>;

/**
 * Calls a route handler the way Next.js does, and reads its JSON answer. An /api/v1 handler's answer must be one the
 * OpenAPI document describes (test/api-response-check.ts), or the call throws.
 */
export async function callRoute(
  handler: RouteHandler,
  options: { method?: string; path?: string; apiKey?: string | null; body?: unknown; params?: Record<string, string>; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const request = new Request(`http://inbox.test${options.path ?? "/"}`, {
    method: options.method ?? "GET",
    headers,
    body: options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body),
  });
  const response = await handler(request, { params: Promise.resolve(options.params ?? {}) });
  const text = await response.text();
  const body = text ? JSON.parse(text) : null;
  await checkApiResponse(handler, response.status, body);
  return { status: response.status, headers: response.headers, body };
}
