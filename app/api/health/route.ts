// GET /api/health — does the database answer, and has a worker checked in within 30 s?
import { getHealth } from "@/lib/health/get-health";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function GET() {
  const { status, body } = await getHealth();
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}
