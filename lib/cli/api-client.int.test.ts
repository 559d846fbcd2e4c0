// The typed client against the real route handlers (in process: test/api-response-check.ts's inProcessApiFetch), each
// answer held to the OpenAPI document too.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { inProcessApiFetch } from "@/test/api-response-check";
import { createOrganizationFixture } from "@/test/fixtures";
import { apiClient, type ApiSchemas } from "./api-client";

process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true"; // its endpoints point at 127.0.0.1
useTestDatabase();

let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  const { apiKey } = await createOrganizationFixture("Acme");
  api = apiClient({ url: "http://inbox.test/", key: apiKey, fetch: inProcessApiFetch });
});

describe("apiClient", () => {
  it("creates, reads and lists endpoints with typed bodies and answers", async () => {
    const created = await api.POST("/endpoints", { body: { name: "Orders", provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/hook" } });
    expect(created.response.status).toBe(201);
    const endpoint: ApiSchemas["CreatedEndpoint"] = created.data!;
    expect(endpoint.secret).toMatch(/^whsec_/);

    const read = await api.GET("/endpoints/{id}", { params: { path: { id: endpoint.id } } });
    expect(read.data).toMatchObject({ id: endpoint.id, name: "Orders", destinationUrl: "http://127.0.0.1:9/hook", paused: false });

    const page = await api.GET("/endpoints", { params: { query: { limit: 1 } } });
    expect(page.data!.data.map((item) => item.id)).toEqual([endpoint.id]);
    expect(page.data!.nextCursor).toBeNull();

    const destinations = await api.GET("/endpoints/{id}/destinations", { params: { path: { id: endpoint.id } } });
    expect(destinations.data!.data).toEqual([expect.objectContaining({ endpointId: endpoint.id, default: true, type: "http" })]);
  });

  it("gives the API's error object on a refusal, typed as such", async () => {
    const refused = await api.POST("/endpoints", { body: { name: "", provider: "none", destinationUrl: "http://127.0.0.1:9/" } });
    expect(refused.response.status).toBe(400);
    expect(refused.data).toBeUndefined();
    expect(refused.error!.error.code).toBe("validation_error");

    const missing = await api.GET("/deliveries/{id}", { params: { path: { id: "dlv_missing" } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error!.error).toEqual({ code: "not_found", message: expect.any(String) });
  });

  it("sends its key: a wrong one is refused", async () => {
    const stranger = apiClient({ url: "http://inbox.test", key: "inbox_sk_not-a-key", fetch: inProcessApiFetch });
    const refused = await stranger.GET("/organization");
    expect(refused.response.status).toBe(401);
    expect(refused.error!.error.code).toBe("unauthorized");
  });

  it("reads the document without a key", async () => {
    const anonymous = apiClient({ url: "http://inbox.test", key: "", fetch: inProcessApiFetch });
    const { data, response } = await anonymous.GET("/openapi.json");
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ openapi: "3.1.0" });
  });
});
