// What `inbox listen` asks of the server (lib/cli/listen.ts ListenApi), through the typed client generated from the
// OpenAPI document: a call the document does not describe does not compile.
import { apiClient, type ApiClient } from "./api-client";
import { ListenError, type ListenApi, type PulledDelivery } from "./listen";

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The answer's data on a 2xx; else a ListenError with the API's message (retryable on 5xx and 429). */
function dataOf<T>({ data, error, response }: Answer<T>): T {
  if (response.ok) return data as T;
  const message = (error as { error?: { message?: string } } | undefined)?.error?.message ?? `HTTP ${response.status}`;
  throw new ListenError(`${message} (HTTP ${response.status})`, response.status);
}

/** The pull destination named `name` on the endpoint, if any (any page of its destinations). */
async function findByName(api: ApiClient, endpointId: string, name: string) {
  for (let cursor: string | undefined; ;) {
    const page = dataOf(await api.GET("/endpoints/{id}/destinations", { params: { path: { id: endpointId }, query: { limit: 100, cursor } } }));
    const found = page.data.find((destination) => destination.name === name);
    if (found || !page.nextCursor) return found;
    cursor = page.nextCursor;
  }
}

export function listenApi(options: { url: string; key: string }): ListenApi {
  const api = apiClient(options);
  const path = (lane: { endpointId: string; destinationId: string }) => ({ path: { id: lane.endpointId, destinationId: lane.destinationId } });
  return {
    async openDestination({ endpointId, name, filter }) {
      const existing = await findByName(api, endpointId, name);
      if (existing) {
        if (existing.type !== "pull") throw new ListenError(`Destination ${name} (${existing.id}) is not a pull destination: rename it or choose another endpoint.`, 409);
        dataOf(await api.PATCH("/endpoints/{id}/destinations/{destinationId}", {
          params: path({ endpointId, destinationId: existing.id }), body: { paused: false, filter: filter as never },
        }));
        return { id: existing.id, created: false };
      }
      const made = dataOf(await api.POST("/endpoints/{id}/destinations", {
        params: { path: { id: endpointId } }, body: { name, type: "pull", filter: filter as never },
      }));
      return { id: made.id, created: true };
    },
    async pull({ signal, max, leaseSeconds, waitSeconds, ...lane }) {
      const answer = dataOf(await api.POST("/endpoints/{id}/destinations/{destinationId}/pull", {
        params: path(lane), body: { max, leaseSeconds, waitSeconds }, signal,
      }));
      return answer.data as PulledDelivery[];
    },
    async ack({ leaseIds, ...lane }) {
      dataOf(await api.POST("/endpoints/{id}/destinations/{destinationId}/ack", { params: path(lane), body: { leaseIds } }));
    },
    async nack({ leaseIds, ...lane }) {
      dataOf(await api.POST("/endpoints/{id}/destinations/{destinationId}/nack", { params: path(lane), body: { leaseIds } }));
    },
    async pause(lane) {
      dataOf(await api.PATCH("/endpoints/{id}/destinations/{destinationId}", { params: path(lane), body: { paused: true } }));
    },
    async remove(lane) {
      dataOf(await api.DELETE("/endpoints/{id}/destinations/{destinationId}", { params: path(lane) }));
    },
  };
}
