// GET /api/metrics: off (404) unless METRICS_TOKEN is set; then only for `Authorization: Bearer <METRICS_TOKEN>`.
import { createHash, timingSafeEqual } from "node:crypto";
import { config } from "@/lib/config/config";
import { errorResponse, jsonError } from "@/lib/http/error-response";
import { ackLatency } from "./ack-latency";
import { EXPOSITION_CONTENT_TYPE, histogramSamples, renderExposition, type MetricFamily } from "./exposition";
import { readDeliveryMetrics, type DestinationMetrics, type EndpointMetrics, type LaneMetrics } from "./read-delivery-metrics";

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

type Labels = Record<string, string>;

/** The delivery families of one kind of lane: `inbox_deliveries_*` by endpoint, `inbox_destination_deliveries_*` by destination. */
function laneFamilies<M extends LaneMetrics>(prefix: string, whose: string, lanes: M[], labels: (m: M) => Labels): MetricFamily[] {
  const family = (name: string, type: "counter" | "gauge", help: string, value: (m: M) => number): MetricFamily => ({
    name: `${prefix}_${name}`, type, help: help.replaceAll("{whose}", whose),
    samples: lanes.map((m) => ({ labels: labels(m), value: value(m) })),
  });
  return [
    family("deliveries_received_total", "counter", "Deliveries stored for the {whose} (verified and kept; duplicates not counted). From the database.", (m) => m.received),
    family("deliveries_delivered_total", "counter", "Times a delivery of the {whose} became delivered (a replayed delivery delivered again counts again). From the database.", (m) => m.delivered),
    family("deliveries_dead_total", "counter", "Times a delivery of the {whose} became dead: attempts ran out, a permanent failure, or buried by a person. From the database.", (m) => m.dead),
    family("deliveries_pending", "gauge", "Deliveries of the {whose} waiting for their first or next attempt (status pending) now.", (m) => m.pending),
    family("deliveries_delivering", "gauge", "Deliveries of the {whose} with an attempt in flight (status delivering) now.", (m) => m.delivering),
    family("deliveries_oldest_pending_age_seconds", "gauge", "Age since receipt of the {whose}'s oldest pending or delivering delivery; 0 when none.", (m) => m.oldestPendingAgeSeconds),
    {
      name: `${prefix}_delivery_attempts`,
      type: "histogram",
      help: `Attempts a delivery of the ${whose} had made when it became delivered or dead (0: buried before any attempt). From the database.`,
      samples: lanes.flatMap((m) => histogramSamples(labels(m), attemptsHistogram(m.outcomesByAttempts))),
    },
  ];
}

function families({ endpoints, destinations }: { endpoints: EndpointMetrics[]; destinations: DestinationMetrics[] }): MetricFamily[] {
  return [
    // An endpoint's: the sums over its destinations (a request handed to three counts three).
    ...laneFamilies("inbox", "endpoint", endpoints, (e) => ({ endpoint_id: e.endpointId, organization_id: e.organizationId })),
    ...laneFamilies("inbox_destination", "destination", destinations, (d) => ({
      destination_id: d.destinationId, endpoint_id: d.endpointId, organization_id: d.organizationId,
    })),
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
