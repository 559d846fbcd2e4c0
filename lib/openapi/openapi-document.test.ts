import { validate, compileErrors } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { GET } from "@/app/api/v1/openapi.json/route";
import { apiRouteOperations } from "@/test/api-response-check";
import { buildOpenApiDocument } from "./openapi-document";

const documented = (document = buildOpenApiDocument()) =>
  Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`)).sort();

describe("the OpenAPI document", () => {
  it("describes every method of every app/api/v1 route file, and nothing else", async () => {
    const routes = (await apiRouteOperations()).map(({ method, path }) => `${method} ${path}`).sort();
    expect(routes.length).toBeGreaterThan(25); // the walk finds the route files at all
    expect(routes).toContain("patch /endpoints/{id}/destinations/{destinationId}");
    expect(documented()).toEqual([...routes].sort());
  });

  it("is valid OpenAPI 3.1", async () => {
    const document = buildOpenApiDocument();
    expect(document.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
  });

  it("takes request bodies as the routes validate them: a field with a default is optional, unknown fields refused", () => {
    const { CreateEndpointInput: create } = buildOpenApiDocument().components.schemas as Record<string, { required: string[]; additionalProperties: boolean }>;
    expect(create!.required.sort()).toEqual(["destinationUrl", "name", "provider"]);
    expect(create!.additionalProperties).toBe(false);
  });

  // That a key sent with it is ignored, even a revoked one, is tested over HTTP (lib/access/hostile-member-http.int.test.ts).
  it("is what GET /api/v1/openapi.json serves, its one operation that needs no key", async () => {
    const withoutKey = await GET();
    expect(withoutKey.status).toBe(200);
    const body = await withoutKey.json();
    expect(documented(body)).toEqual(documented());
    const keyless = Object.entries(body.paths as Record<string, Record<string, { security?: unknown[] }>>)
      .flatMap(([path, item]) => Object.entries(item).filter(([, operation]) => operation.security?.length === 0).map(([method]) => `${method} ${path}`));
    expect(keyless).toEqual(["get /openapi.json"]);
    expect(body.security).toEqual([{ apiKey: [] }]);
  });
});
