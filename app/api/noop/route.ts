// POST /api/noop — the benchmark's baseline: what a Next.js route costs when it does nothing (INBOX_BENCH=true only)
import { config } from "@/lib/config/config";

export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  if (!config().INBOX_BENCH) return Response.json({ error: { code: "not_found", message: "Not found." } }, { status: 404 });
  await request.arrayBuffer();
  return Response.json({ id: "noop", duplicate: false });
}
