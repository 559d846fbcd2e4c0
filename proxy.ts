// HSTS for what a browser opens (pages, Auth.js), when APP_URL is https. Here rather than in
// next.config.ts headers(), which are fixed at build time, while APP_URL is read at start.
// Ingest, the REST API and static files skip this proxy: they are not where a browser lands, and
// ingest's per-request cost is counted in microseconds.
import { NextResponse } from "next/server";
import { strictTransportSecurity } from "@/lib/http/security-headers";

export function proxy() {
  const response = NextResponse.next();
  const hsts = strictTransportSecurity(process.env.APP_URL);
  if (hsts) response.headers.set("Strict-Transport-Security", hsts);
  return response;
}

export const config = {
  matcher: ["/((?!in/|api/v1/|api/health|_next/static/|_next/image|favicon\\.ico).*)"],
};
