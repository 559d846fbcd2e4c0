// The REST API's typed client (README "OpenAPI and the typed client"): openapi-fetch over the types generated from the
// OpenAPI document (lib/cli/api-types.generated.ts, `npm run openapi:client`). Paths, parameters, bodies and answers
// are typed per operation: `const { data, error } = await api.GET("/endpoints/{id}", { params: { path: { id } } })`
// gives `data` as the endpoint on a 2xx, else `error` as `{error: {code, message}}`.
import createClient from "openapi-fetch";
import type { components, paths } from "./api-types.generated";

/** The API's objects by name: `ApiSchemas["Endpoint"]`, `ApiSchemas["Delivery"]`, … */
export type ApiSchemas = components["schemas"];

export interface ApiClientOptions {
  /** Where the app is served (APP_URL), e.g. https://inbox.example.com; /api/v1 is added. */
  url: string;
  /** An API key of the organization. */
  key: string;
  /** Another fetch (tests, proxies); globalThis.fetch by default. */
  fetch?: (request: Request) => Promise<Response>;
}

export function apiClient({ url, key, fetch }: ApiClientOptions) {
  return createClient<paths>({
    baseUrl: `${url.replace(/\/+$/, "")}/api/v1`,
    headers: { authorization: `Bearer ${key}` },
    ...(fetch ? { fetch } : {}),
  });
}
export type ApiClient = ReturnType<typeof apiClient>;
