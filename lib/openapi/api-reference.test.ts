// docs/api-reference.md is what `npm run docs:api` writes from today's OpenAPI document: a route, field or answer
// changed without it regenerated fails here.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { apiReferenceMarkdown, typeOf } from "./api-reference";

describe("the REST API reference", () => {
  it("is what npm run docs:api writes from the OpenAPI document today", () => {
    const written = readFileSync(path.resolve("docs/api-reference.md"), "utf8");
    expect(written, "docs/api-reference.md is stale: run npm run docs:api").toBe(apiReferenceMarkdown());
  });

  it("names every route and object of the document", () => {
    const reference = apiReferenceMarkdown();
    for (const route of ["### `POST /endpoints/{id}/destinations/{destinationId}/pull`", "### `GET /openapi.json`", "### `POST /endpoints/{id}/test-event`", "### Destination", "### EndpointStats"]) {
      expect(reference).toContain(route);
    }
  });

  it("says a schema's type in a few words", () => {
    expect(typeOf({ type: "string", minLength: 1, maxLength: 200 })).toBe("string (1–200 chars)");
    expect(typeOf({ anyOf: [{ $ref: "#/components/schemas/Endpoint" }, { type: "null" }] })).toBe("Endpoint \\| null");
    expect(typeOf({ type: "array", items: { type: "integer", minimum: 1 } })).toBe("[integer (1–…)]");
    expect(typeOf({ enum: ["a", "b"] })).toBe('"a" \\| "b"');
  });
});
