// POST /in/:endpointId — take custody of a webhook
import { ingestResponse, methodNotAllowed } from "@/lib/ingest/ingest-response";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ endpointId: string }> }) {
  return ingestResponse(request, (await params).endpointId);
}

export const GET = methodNotAllowed;
export const PUT = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const DELETE = methodNotAllowed;
