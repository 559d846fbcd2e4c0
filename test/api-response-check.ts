// Every answer a REST test receives is held to the OpenAPI document (GET /api/v1/openapi.json): callRoute
// (test/fixtures.ts) checks each /api/v1 handler's answer here, so a status the document does not list for that
// operation, or a body its schema refuses, fails the test that received it.
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import type { buildOpenApiDocument } from "@/lib/openapi/openapi-document";

const ROOT = join(import.meta.dirname, "..");
const API_DIR = join(ROOT, "app", "api", "v1");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

/** Each app/api/v1 route file's exported methods, its path as the document writes it (`[id]` → `{id}`). */
export function apiRouteFiles(): { file: string; path: string }[] {
  return readdirSync(API_DIR, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name === "route.ts")
    .map((entry) => {
      const file = join(entry.parentPath, entry.name);
      const dir = relative(API_DIR, entry.parentPath).split(sep).filter(Boolean);
      return { file, path: `/${dir.map((part) => part.replace(/^\[(\w+)\]$/, "{$1}")).join("/")}` };
    });
}

export async function apiRouteOperations(): Promise<{ method: string; path: string; handler: unknown }[]> {
  const files = apiRouteFiles();
  const modules = await Promise.all(files.map(async ({ file, path }) => ({ path, module: (await import(file)) as Record<string, unknown> })));
  return modules.flatMap(({ path, module }) =>
    METHODS.filter((method) => typeof module[method] === "function").map((method) => ({ method: method.toLowerCase(), path, handler: module[method] })));
}

type Document = ReturnType<typeof buildOpenApiDocument>;
type ResponseObject = { description: string; content?: { "application/json": { schema: { $ref: string } } } };

let loaded: Promise<{ document: Document; ajv: Ajv2020; byHandler: Map<unknown, { method: string; path: string }> }> | undefined;
const compiled = new Map<string, ValidateFunction>();

// Imported when first needed: every integration file imports test/fixtures.ts, most never call a REST handler,
// and the document's module graph (every operation's schemas) and ajv are a large part of a file's import time.
function load() {
  loaded ??= (async () => {
    const [{ buildOpenApiDocument }, { Ajv2020 }, { default: addFormats }] = await Promise.all([
      import("@/lib/openapi/openapi-document"),
      import("ajv/dist/2020.js"),
      import("ajv-formats"),
    ]);
    const document = buildOpenApiDocument();
    const ajv = new Ajv2020({ strict: false, allErrors: true, unicodeRegExp: false });
    addFormats.default(ajv);
    ajv.addSchema(document, "openapi.json");
    const byHandler = new Map((await apiRouteOperations()).map(({ method, path, handler }) => [handler, { method, path }]));
    return { document, ajv, byHandler };
  })();
  return loaded;
}

/**
 * Throws unless the document describes this answer of `handler`: its operation lists `status`, and the body
 * validates against that response's schema (no schema: no body). A handler outside app/api/v1 is not checked.
 */
export async function checkApiResponse(handler: unknown, status: number, body: unknown): Promise<void> {
  const { document, ajv, byHandler } = await load();
  const route = byHandler.get(handler);
  if (!route) return;
  const where = `${route.method.toUpperCase()} ${route.path} answered ${status}`;
  const operation = (document.paths[route.path] as Record<string, { responses: Record<string, ResponseObject> }> | undefined)?.[route.method];
  if (!operation) throw new Error(`${where}, but the OpenAPI document has no such operation.`);
  const response = operation.responses[String(status)];
  if (!response) throw new Error(`${where}, a status the OpenAPI document does not list for it (${Object.keys(operation.responses).join(", ")}).`);
  const schema = response.content?.["application/json"].schema;
  if (!schema) {
    if (body !== null) throw new Error(`${where} with a body, where the OpenAPI document says there is none.`);
    return;
  }
  let validate = compiled.get(schema.$ref);
  if (!validate) compiled.set(schema.$ref, (validate = ajv.compile({ $ref: `openapi.json${schema.$ref}` })));
  if (!validate(body)) {
    throw new Error(`${where} with a body the OpenAPI document's ${schema.$ref} refuses: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`);
  }
}

/** A path segment as Next.js hands it to the route; a malformed %-escape as it came (the app refuses it first). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The app/api/v1 handler that answers `method` on `pathname` (/api/v1/…), with its path parameters; null when none. */
export async function matchApiRoute(method: string, pathname: string): Promise<{ handler: unknown; params: Record<string, string> } | null> {
  for (const { method: routeMethod, path, handler } of await apiRouteOperations()) {
    if (routeMethod !== method.toLowerCase()) continue;
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    const match = new RegExp(`^/api/v1${path.replace(/[.]/g, "\\.").replace(/\{\w+\}/g, "([^/]+)")}/?$`).exec(pathname);
    if (match) return { handler, params: Object.fromEntries(names.map((name, index) => [name, decoded(match[index + 1]!)])) };
  }
  return null;
}

/** checkApiResponse for an answer received over HTTP: `pathname` names the operation. A path no route serves is not checked. */
export async function checkApiAnswer(method: string, pathname: string, status: number, body: unknown): Promise<void> {
  const route = await matchApiRoute(method, pathname);
  if (route) await checkApiResponse(route.handler, status, body);
}

/**
 * A fetch that answers /api/v1 requests by calling their route handlers in this process, as Next.js would (no server
 * to build), each answer checked against the document like callRoute's: for the typed client's tests.
 */
export async function inProcessApiFetch(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const route = await matchApiRoute(request.method, pathname);
  if (!route) return Response.json({ error: { code: "not_found", message: `No route for ${request.method} ${pathname}.` } }, { status: 404 });
  const handler = route.handler as (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
  const response = await handler(request, { params: Promise.resolve(route.params) });
  const text = await response.clone().text();
  await checkApiResponse(route.handler, response.status, text ? JSON.parse(text) : null);
  return response;
}
