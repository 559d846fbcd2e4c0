// GET /api/metrics: off (404) unless METRICS_TOKEN is set; then only for `Authorization: Bearer <METRICS_TOKEN>`.
import { createHash, timingSafeEqual } from "node:crypto";
import { config } from "@/lib/config/config";
import { errorResponse, jsonError } from "@/lib/http/error-response";
import { ackLatency } from "./ack-latency";
import { EXPOSITION_CONTENT_TYPE, histogramSamples, renderExposition, type MetricFamily } from "./exposition";
import { readDeliveryMetrics, type EndpointMetrics } from "./read-delivery-metrics";

const ATTEMPT_BOUNDS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 25, 50] as const;

/** Compares digests, so the time taken says nothing about the token, not even its length. */
function bearerMatches(authorization: string | null, token: string): boolean {
  const given = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1] ?? "";
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}

function attemptsHistogram(outcomes: Map<number, number>) {
  let sum = 0;
  let count = 0;
  for (const [attempts, n] of outcomes) {
    sum += attempts * n;
    count += n;
  }
  const buckets = ATTEMPT_BOUNDS.map((le) => ({ le, count: [...outcomes].reduce((total, [attempts, n]) => total + (attempts <= le ? n : 0), 0) }));
  return { buckets, sum, count };
}

function families(endpoints: EndpointMetrics[]): MetricFamily[] {
  const perEndpoint = (name: string, type: "counter" | "gauge", help: string, value: (e: EndpointMetrics) => number): MetricFamily => ({
    name, type, help,
    samples: endpoints.map((e) => ({ labels: { endpoint_id: e.endpointId, organization_id: e.organizationId }, value: value(e) })),
  });
  return [
    perEndpoint("inbox_deliveries_received_total", "counter", "Deliveries stored for the endpoint (verified and kept; duplicates not counted). From the database.", (e) => e.received),
    perEndpoint("inbox_deliveries_delivered_total", "counter", "Times a delivery of the endpoint became delivered (a replayed delivery delivered again counts again). From the database.", (e) => e.delivered),
    perEndpoint("inbox_deliveries_dead_total", "counter", "Times a delivery of the endpoint became dead: attempts ran out, a permanent failure, or buried by a person. From the database.", (e) => e.dead),
    perEndpoint("inbox_deliveries_pending", "gauge", "Deliveries of the endpoint waiting for their first or next attempt (status pending) now.", (e) => e.pending),
    perEndpoint("inbox_deliveries_delivering", "gauge", "Deliveries of the endpoint with an attempt in flight (status delivering) now.", (e) => e.delivering),
    perEndpoint("inbox_deliveries_oldest_pending_age_seconds", "gauge", "Age since receipt of the endpoint's oldest pending or delivering delivery; 0 when none.", (e) => e.oldestPendingAgeSeconds),
    {
      name: "inbox_delivery_attempts",
      type: "histogram",
      help: "Attempts a delivery had made when it became delivered or dead (0: buried before any attempt). From the database.",
      samples: endpoints.flatMap((e) => histogramSamples({ endpoint_id: e.endpointId, organization_id: e.organizationId }, attemptsHistogram(e.outcomesByAttempts))),
    },
    {
      name: "inbox_ingest_ack_seconds",
      type: "histogram",
      help: "Time from an ingest request reaching its route handler to its 200 answer (stored or duplicate). Per process: in-memory, reset when the process restarts; each web server process reports its own.",
      samples: histogramSamples({}, ackLatency().snapshot()),
    },
  ];
}

/** The whole answer for GET /api/metrics. */
export async function metricsResponse(request: Request): Promise<Response> {
  const token = config().METRICS_TOKEN;
  if (!token) return jsonError(404, "not_found", "Not found.");
  if (!bearerMatches(request.headers.get("authorization"), token)) {
    return jsonError(401, "unauthorized", "Send Authorization: Bearer <METRICS_TOKEN>.", { "www-authenticate": 'Bearer realm="metrics"' });
  }
  try {
    const text = renderExposition(families(await readDeliveryMetrics()));
    return new Response(text, { headers: { "content-type": EXPOSITION_CONTENT_TYPE, "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
