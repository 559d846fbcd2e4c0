// POST /api/noop — the benchmark's baseline: what a Next.js route costs when it does nothing (INBOX_BENCH=true only)
export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  if (process.env.INBOX_BENCH !== "true") return Response.json({ error: { code: "not_found", message: "Not found." } }, { status: 404 });
  await request.arrayBuffer();
  return Response.json({ id: "noop", duplicate: false });
}
