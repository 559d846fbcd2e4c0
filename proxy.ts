// Runs before the router, only for the requests its matchers name:
// - pages (what a browser lands on; HSTS seen once covers the whole host): HSTS when APP_URL is https.
//   Here rather than in next.config.ts headers(), which are fixed at build time, while APP_URL is read
//   at start. Not /api/*: a sign-in storm's requests must cost as little as a request can;
// - any path holding a `%`, and multipart POSTs to anything but ingest: refused with 400/413 when
//   Next.js could not parse them (lib/http/refuse-malformed-request.ts).
// Ingest (/in/<id>), the APIs and static files never run it: ingest's per-request cost is counted in
// microseconds.
import { NextResponse, type NextRequest } from "next/server";
import { refuseMalformedRequest } from "@/lib/http/refuse-malformed-request";
import { strictTransportSecurity } from "@/lib/http/security-headers";

export async function proxy(request: NextRequest) {
  const response = (await refuseMalformedRequest(request)) ?? NextResponse.next();
  const hsts = strictTransportSecurity(process.env.APP_URL);
  if (hsts) response.headers.set("Strict-Transport-Security", hsts);
  return response;
}

export const config = {
  matcher: [
    "/((?!in/|api/|_next/static/|_next/image|favicon\\.ico).*)",
    "/(.*%.*)",
    { source: "/((?!in/[^/]+/?$).*)", has: [{ type: "header", key: "content-type", value: "multipart/form-data.*" }] },
  ],
};
