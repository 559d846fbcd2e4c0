import { errorResponse, jsonError } from "@/lib/http/error-response";
import { ackLatency } from "@/lib/metrics/ack-latency";
import type { HandshakeAnswer } from "@/lib/signatures/types";
import { answerGetHandshake } from "./answer-get-handshake";
import { ingestDelivery } from "./ingest-delivery";

/** The whole ingest answer for a POST, as API.md lists it status by status. */
export async function ingestResponse(request: Request, endpointId: string): Promise<Response> {
  const started = performance.now();
  try {
    const outcome = await ingestDelivery(request, endpointId);
    if (outcome.kind === "handshake") return handshakeResponse(outcome.answer);
    ackLatency().observe((performance.now() - started) / 1000);
    return Response.json({ id: outcome.id, duplicate: outcome.duplicate });
  } catch (error) {
    return errorResponse(error);
  }
}

/** A GET: a provider's subscription handshake (Meta), else 405. */
export async function getHandshakeResponse(request: Request, endpointId: string): Promise<Response> {
  try {
    const answer = await answerGetHandshake(request, endpointId);
    return answer ? handshakeResponse(answer) : methodNotAllowed();
  } catch (error) {
    return errorResponse(error);
  }
}

function handshakeResponse(answer: HandshakeAnswer): Response {
  switch (answer.kind) {
    case "json":
      return Response.json(answer.body);
    case "text":
      // The sender's own challenge echoed back: plain text, never sniffed as HTML.
      return new Response(answer.body, { headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" } });
    case "no-content":
      return new Response(null, { status: 204 });
  }
}

export function methodNotAllowed(): Response {
  return jsonError(405, "method_not_allowed", "Send webhooks with POST.", { allow: "POST" });
}
