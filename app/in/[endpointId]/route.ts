// POST /in/:endpointId — take custody of a webhook (GET: only a provider's subscription handshake)
import { getHandshakeResponse, ingestResponse, methodNotAllowed } from "@/lib/ingest/ingest-response";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ endpointId: string }> };

export async function POST(request: Request, { params }: Context) {
  return ingestResponse(request, (await params).endpointId);
}

export async function GET(request: Request, { params }: Context) {
  return getHandshakeResponse(request, (await params).endpointId);
}

export const PUT = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const DELETE = methodNotAllowed;
