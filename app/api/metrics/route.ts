// GET /api/metrics — Prometheus text for a scraper holding METRICS_TOKEN (404 when it is unset)
import { metricsResponse } from "@/lib/metrics/metrics-response";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  return metricsResponse(request);
}
