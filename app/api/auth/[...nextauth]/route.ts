// GET/POST /api/auth/* — Auth.js sign-in, sign-out and session endpoints
import { handlers } from "@/lib/auth/auth";
import { postAuthRequest } from "@/lib/auth/post-auth-request";

export const { GET } = handlers;
export const POST = postAuthRequest;
