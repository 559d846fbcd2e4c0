// GET/POST /api/auth/* — Auth.js sign-in, sign-out and session endpoints
import { handlers } from "@/lib/auth/auth";

export const { GET, POST } = handlers;
