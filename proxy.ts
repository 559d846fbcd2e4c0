// Next.js answers a malformed percent-encoding in a dynamic path segment (`/in/%ZZ`,
// `/deliveries/%E0%A4%A`) with a bare 500: its router's DecodeError is meant to become a 400, but
// rendering that 400 page fails in the App Router. This answers those requests 400 before routing.
// It runs only for paths holding a `%` (the matcher), so the ingest path pays nothing for it.
import { NextResponse, type NextRequest } from "next/server";

export function proxy(request: NextRequest) {
  try {
    decodeURIComponent(request.nextUrl.pathname);
  } catch {
    return NextResponse.json(
      { error: { code: "validation_error", message: "The request path is not valid percent-encoding." } },
      { status: 400 },
    );
  }
  return NextResponse.next();
}

export const config = { matcher: "/(.*%.*)" };
