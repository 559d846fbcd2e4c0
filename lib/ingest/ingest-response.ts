import { errorResponse, jsonError } from "@/lib/http/error-response";
import { ackLatency } from "@/lib/metrics/ack-latency";
import { ingestDelivery } from "./ingest-delivery";

/** The whole ingest answer for a POST, as API.md lists it status by status. */
export async function ingestResponse(request: Request, endpointId: string): Promise<Response> {
  const started = performance.now();
  try {
    const outcome = await ingestDelivery(request, endpointId);
    if (outcome.kind === "handshake") return Response.json(outcome.body);
    ackLatency().observe((performance.now() - started) / 1000);
    return Response.json({ id: outcome.id, duplicate: outcome.duplicate });
  } catch (error) {
    return errorResponse(error);
  }
}

export function methodNotAllowed(): Response {
  return jsonError(405, "method_not_allowed", "Send webhooks with POST.", { allow: "POST" });
}
