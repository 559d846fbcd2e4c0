// The check callRoute runs on every /api/v1 answer (test/api-response-check.ts) refuses what the document does not say.
import { describe, expect, it } from "vitest";
import * as endpoint from "@/app/api/v1/endpoints/[id]/route";
import * as endpoints from "@/app/api/v1/endpoints/route";
import { checkApiResponse } from "./api-response-check";

const listed = { data: [], nextCursor: null };
const error = { error: { code: "not_found", message: "Endpoint not found." } };

describe("checkApiResponse", () => {
  it("passes an answer the document describes", async () => {
    await expect(checkApiResponse(endpoints.GET, 200, listed)).resolves.toBeUndefined();
    await expect(checkApiResponse(endpoint.GET, 404, error)).resolves.toBeUndefined();
    await expect(checkApiResponse(endpoint.DELETE, 204, null)).resolves.toBeUndefined();
  });

  it("refuses a status the operation does not list", async () => {
    await expect(checkApiResponse(endpoints.GET, 404, error)).rejects.toThrow(/GET \/endpoints answered 404, a status the OpenAPI document does not list/);
    await expect(checkApiResponse(endpoints.POST, 200, listed)).rejects.toThrow(/does not list/);
  });

  it("refuses a body its schema does not describe: a field missing, one too many, a wrong type, an error of another shape", async () => {
    await expect(checkApiResponse(endpoints.GET, 200, { data: [] })).rejects.toThrow(/nextCursor/);
    await expect(checkApiResponse(endpoints.GET, 200, { ...listed, total: 0 })).rejects.toThrow(/additional properties/);
    await expect(checkApiResponse(endpoints.GET, 200, { data: [{ id: 1 }], nextCursor: null })).rejects.toThrow(/refuses/);
    await expect(checkApiResponse(endpoint.GET, 404, { message: "not found" })).rejects.toThrow(/refuses/);
    await expect(checkApiResponse(endpoint.DELETE, 204, { deleted: true })).rejects.toThrow(/with a body/);
  });

  it("leaves a handler outside app/api/v1 alone", async () => {
    await expect(checkApiResponse(() => new Response(), 418, "tea")).resolves.toBeUndefined();
  });
});
