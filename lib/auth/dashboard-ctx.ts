import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import type { Role } from "@/lib/access/roles";
import { createCtx, type Ctx } from "@/lib/context";
import { clientAddress } from "@/lib/http/client-address";
import { auth } from "./auth";
import { loginPath, REQUESTED_PATH_HEADER } from "./return-path";

// One session check per request, however many components and actions ask (layout + page).
const currentSession = cache(() => auth());

export interface DashboardSession {
  userId: string;
  organizationId: string;
  role: Role;
  sessionId: string;
}

/**
 * The signed-in user's live session (checked against the sessions table and the membership by
 * auth()'s jwt callback); no session, an ended one, or a removed membership → the login page, which
 * comes back to the page asked for after signing in.
 */
export async function requireDashboardSession(): Promise<DashboardSession> {
  const session = await currentSession();
  if (session?.sessionCheckFailed) throw new Error("The session could not be checked; the database may be unavailable.");
  if (!session?.organizationId || !session.userId || !session.sessionId || !session.role) redirect(loginPath((await headers()).get(REQUESTED_PATH_HEADER)));
  return { userId: session.userId, organizationId: session.organizationId, role: session.role, sessionId: session.sessionId };
}

/** The signed-in user's tenant ctx for dashboard pages and actions; no live session → the login page. */
export async function requireDashboardCtx(): Promise<Ctx & { actor: { type: "user"; userId: string; role: Role } }> {
  const { organizationId, userId, role } = await requireDashboardSession();
  const ip = clientAddress(await headers());
  return createCtx(organizationId, { type: "user", userId, role }, undefined, ip) as Ctx & { actor: { type: "user"; userId: string; role: Role } };
}
