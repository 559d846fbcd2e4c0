import type { NextRequest } from "next/server";
import { handlers } from "./auth";
import { signInAdmitted } from "./sign-in-gate";

/**
 * POST /api/auth/*: Auth.js, except that a credentials sign-in the gate does not admit (too many a
 * second in this process, or password hashing full; sign-in-gate.ts) is refused before Auth.js reads
 * the body and checks its CSRF token, so a storm of sign-ins costs the process as little as a request
 * can. The answer is the redirect Auth.js gives for a refused sign-in, with code=busy.
 */
export async function postAuthRequest(request: NextRequest): Promise<Response> {
  if (request.nextUrl.pathname.endsWith("/callback/credentials") && !signInAdmitted()) {
    const login = new URL("/login", request.nextUrl);
    login.search = new URLSearchParams({ error: "CredentialsSignin", code: "busy" }).toString();
    return new Response(null, { status: 302, headers: { location: login.toString(), "cache-control": "no-store" } });
  }
  return handlers.POST(request);
}
