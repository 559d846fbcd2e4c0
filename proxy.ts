// Runs before the router, only for the requests its matchers name:
// - pages (what a browser lands on; HSTS seen once covers the whole host): HSTS when APP_URL is https.
//   Here rather than in next.config.ts headers(), which are fixed at build time, while APP_URL is read
//   at start. Not /api/*: a sign-in storm's requests must cost as little as a request can;
// - any path holding a `%`, and multipart POSTs to anything but ingest: refused with 400/413 when
//   Next.js could not parse them (lib/http/refuse-malformed-request.ts);
// - pages: the path asked for is passed on in a request header, so a signed-out visit is sent to
//   sign-in with the way back (lib/auth/return-path.ts); a server component cannot read its URL.
// Ingest (/in/<id>), the APIs and static files never run it: ingest's per-request cost is counted in
// microseconds.
import { NextResponse, type NextRequest } from "next/server";
import { REQUESTED_PATH_HEADER } from "@/lib/auth/return-path";
import { config as settings } from "@/lib/config/config";
import { refuseMalformedRequest } from "@/lib/http/refuse-malformed-request";
import { strictTransportSecurity } from "@/lib/http/security-headers";

export async function proxy(request: NextRequest) {
  const headers = new Headers(request.headers);
  headers.set(REQUESTED_PATH_HEADER, request.nextUrl.pathname + request.nextUrl.search);
  const response = (await refuseMalformedRequest(request)) ?? NextResponse.next({ request: { headers } });
  const hsts = strictTransportSecurity(settings().APP_URL);
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
