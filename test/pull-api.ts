// Pull destinations over their route handlers (API.md "Pull destinations"): an endpoint whose default destination
// is paused (its rows wait, parked, and never leave) with one pull destination, requests ingested to it, and the
// pull, ack and nack calls.
import { expect } from "vitest";
import * as ackRoute from "@/app/api/v1/endpoints/[id]/destinations/[destinationId]/ack/route";
import * as nackRoute from "@/app/api/v1/endpoints/[id]/destinations/[destinationId]/nack/route";
import * as pullRoute from "@/app/api/v1/endpoints/[id]/destinations/[destinationId]/pull/route";
import * as destinationsRoute from "@/app/api/v1/endpoints/[id]/destinations/route";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import type { Ctx } from "@/lib/context";
import { callRoute } from "@/test/fixtures";
import { postIngest, standardWebhooksHeaders } from "@/test/ingest-requests";

export interface PullLane {
  endpointId: string;
  destinationId: string;
  secret: string;
  apiKey: string;
}

/** An endpoint (its default destination paused) and a pull destination of it with `fields`. */
export async function pullLane(org: { ctx: Ctx; apiKey: string }, fields: Record<string, unknown> = {}): Promise<PullLane> {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true"; // the paused default destination's loopback url
  const endpoint = await createEndpoint({ ctx: org.ctx, input: { name: "Laptop", provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/unused", paused: true } });
  const made = await callRoute(destinationsRoute.POST, { method: "POST", apiKey: org.apiKey, params: { id: endpoint.id }, body: { name: "listen-laptop", type: "pull", ...fields } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return { endpointId: endpoint.id, destinationId: made.body.id, secret: endpoint.secret!, apiKey: org.apiKey };
}

/** Ingests `body` (JSON) to the lane's endpoint; returns the request's id. */
export async function send(lane: PullLane, body: Record<string, unknown>): Promise<string> {
  const text = JSON.stringify(body);
  const answer = await postIngest(lane.endpointId, text, standardWebhooksHeaders(lane.secret, text));
  expect(answer.status).toBe(200);
  return answer.body.id as string;
}

const params = (lane: PullLane) => ({ id: lane.endpointId, destinationId: lane.destinationId });

export const pull = (lane: PullLane, body: unknown = {}, apiKey = lane.apiKey) => callRoute(pullRoute.POST, { method: "POST", apiKey, params: params(lane), body });
export const ack = (lane: PullLane, body: unknown, apiKey = lane.apiKey) => callRoute(ackRoute.POST, { method: "POST", apiKey, params: params(lane), body });
export const nack = (lane: PullLane, body: unknown, apiKey = lane.apiKey) => callRoute(nackRoute.POST, { method: "POST", apiKey, params: params(lane), body });

export interface Pulled {
  leaseId: string;
  deliveryId: string;
  attempt: number;
  receivedAt: string;
  eventType: string | null;
  externalId: string;
  headers: Record<string, string>;
  body: string;
  bodyEncoding: string;
}

/** A pull's leased deliveries (it must answer 200). */
export async function pulled(lane: PullLane, body: unknown = {}): Promise<Pulled[]> {
  const res = await pull(lane, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Pulled[];
}
