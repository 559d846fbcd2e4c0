// GET /in/:endpointId answers only a provider's subscription handshake (Meta's hub.challenge),
// checked against the endpoint as a POST's signature is; any other GET is 405 (null here). Nothing
// is stored, and no body is read; a refused handshake is logged like a refused POST.
import { SignatureError } from "@/lib/errors";
import { clientAddress } from "@/lib/http/client-address";
import { answerGetHandshake as answerFor } from "@/lib/signatures";
import type { HandshakeAnswer } from "@/lib/signatures/types";
import { requireIngestEndpoint } from "@/lib/endpoints/endpoint-cache";
import { recordRejection } from "./record-rejection";

export async function answerGetHandshake(request: Request, endpointId: string): Promise<HandshakeAnswer | null> {
  const endpoint = await requireIngestEndpoint(endpointId);
  try {
    return answerFor(endpoint.provider, { query: new URL(request.url).searchParams, verifyToken: endpoint.verifyToken });
  } catch (error) {
    if (error instanceof SignatureError) {
      recordRejection(endpoint, { reason: error.code, message: error.message, sourceIp: clientAddress(request.headers), headerNames: [...request.headers.keys()] });
    }
    throw error;
  }
}
