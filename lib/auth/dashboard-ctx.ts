import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { createCtx, type Ctx } from "@/lib/context";
import { auth } from "./auth";
import { loginPath, REQUESTED_PATH_HEADER } from "./return-path";

// One session check per request, however many components and actions ask (layout + page).
const currentSession = cache(() => auth());

export interface DashboardSession {
  userId: string;
  organizationId: string;
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
  if (!session?.organizationId || !session.userId || !session.sessionId) redirect(loginPath((await headers()).get(REQUESTED_PATH_HEADER)));
  return { userId: session.userId, organizationId: session.organizationId, sessionId: session.sessionId };
}

/** The signed-in user's tenant ctx for dashboard pages and actions; no live session → the login page. */
export async function requireDashboardCtx(): Promise<Ctx & { actor: { type: "user"; userId: string } }> {
  const { organizationId, userId } = await requireDashboardSession();
  return createCtx(organizationId, { type: "user", userId }) as Ctx & { actor: { type: "user"; userId: string } };
}
