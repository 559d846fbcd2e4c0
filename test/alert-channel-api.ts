// The alert channels' REST API called as Next.js does (app/api/v1/alert-channels), for the alert tests.
import * as collection from "@/app/api/v1/alert-channels/route";
import * as item from "@/app/api/v1/alert-channels/[id]/route";
import * as test from "@/app/api/v1/alert-channels/[id]/test/route";
import { callRoute } from "@/test/fixtures";

export const channelApi = {
  list: (apiKey: string, query = "") => callRoute(collection.GET, { apiKey, path: `/api/v1/alert-channels${query}` }),
  create: (apiKey: string, body: unknown) => callRoute(collection.POST, { method: "POST", apiKey, body }),
  get: (apiKey: string, id: string) => callRoute(item.GET, { apiKey, params: { id } }),
  patch: (apiKey: string, id: string, body: unknown) => callRoute(item.PATCH, { method: "PATCH", apiKey, params: { id }, body }),
  remove: (apiKey: string, id: string) => callRoute(item.DELETE, { method: "DELETE", apiKey, params: { id } }),
  test: (apiKey: string, id: string) => callRoute(test.POST, { method: "POST", apiKey, params: { id } }),
};
