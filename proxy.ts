// Requests Next.js would answer with a bare 500 before any of our code runs, answered 400 instead:
// - a path whose percent-encoding does not decode (`/in/%ZZ`, `/deliveries/%E0%A4%A`): the router's
//   DecodeError is meant to become a 400, but rendering that 400 page fails in the App Router;
// - a POST with a multipart/form-data body that does not parse, to any page or unknown path: Next.js
//   takes every multipart POST to a page for a (no-JS) server action and fails parsing it.
// The matchers keep it off everything else: the ingest path (/in/<id>) never runs it.
import { NextResponse, type NextRequest } from "next/server";

const MAX_FORM_BYTES = 1_048_576;
const INGEST = /^\/in\/[^/]+\/?$/;

const refuse = (status: number, message: string) =>
  NextResponse.json({ error: { code: status === 413 ? "payload_too_large" : "validation_error", message } }, { status });

export async function proxy(request: NextRequest) {
  const path = request.nextUrl.pathname;
  try {
    decodeURIComponent(path);
  } catch {
    return refuse(400, "The request path is not valid percent-encoding.");
  }
  if (request.method === "POST" && request.headers.get("content-type")?.startsWith("multipart/form-data") && !INGEST.test(path)) {
    if (Number(request.headers.get("content-length") ?? 0) > MAX_FORM_BYTES) return refuse(413, "The form is larger than 1 MiB.");
    try {
      await request.clone().formData();
    } catch {
      return refuse(400, "The request body is not valid multipart/form-data.");
    }
  }
  return NextResponse.next();
}

export const config = {
  matcher: [
    "/(.*%.*)",
    { source: "/((?!in/[^/]+/?$).*)", has: [{ type: "header", key: "content-type", value: "multipart/form-data.*" }] },
  ],
};
