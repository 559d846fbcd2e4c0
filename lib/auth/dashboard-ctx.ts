import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { Session } from "next-auth";
import { cache } from "react";
import { requirePermission, type Permission, type Role } from "@/lib/access/roles";
import { createCtx, type Ctx } from "@/lib/context";
import { ConflictError } from "@/lib/errors";
import { clientAddress } from "@/lib/http/client-address";
import { auth } from "./auth";
import { loginPath, REQUESTED_PATH_HEADER } from "./return-path";

// One session check per request, however many components and actions ask (layout + page), until an
// action changes the session's organization: the page it then redirects to is rendered in the same
// request and must see the new one (forgetCurrentSession).
const requestSession = cache((): { session?: Promise<Session | null> } => ({}));
const currentSession = () => (requestSession().session ??= auth());

/** The session's row changed in this request (a switch, a deleted organization): read it again when next asked. */
export function forgetCurrentSession(): void {
  requestSession().session = undefined;
}

/** Where a signed-in user with no organization (their last one was deleted) is sent: they may create one. */
export const NO_ORGANIZATION_PATH = "/organizations/new";

export interface SignedInUser {
  userId: string;
  sessionId: string;
  /** The organization the session works in, with the user's role there; null when they have none left. */
  organizationId: string | null;
  role: Role | null;
}

export interface DashboardSession {
  userId: string;
  organizationId: string;
  role: Role;
  sessionId: string;
}

/**
 * The signed-in user's live session (checked against the sessions table, and the membership when it
 * names an organization, by auth()'s jwt callback), with or without an organization; no session or an
 * ended one → the login page, which comes back to the page asked for after signing in.
 */
export async function requireSignedInUser(): Promise<SignedInUser> {
  const session = await currentSession();
  if (session?.sessionCheckFailed) throw new Error("The session could not be checked; the database may be unavailable.");
  if (!session?.userId || !session.sessionId) redirect(loginPath((await headers()).get(REQUESTED_PATH_HEADER)));
  return { userId: session.userId, sessionId: session.sessionId, organizationId: session.organizationId ?? null, role: session.role ?? null };
}

/** requireSignedInUser, in an organization: a user with none left is sent to create one. */
export async function requireDashboardSession(): Promise<DashboardSession> {
  const { userId, sessionId, organizationId, role } = await requireSignedInUser();
  if (!organizationId || !role) redirect(NO_ORGANIZATION_PATH);
  return { userId, organizationId, role, sessionId };
}

/**
 * The signed-in user's tenant ctx for dashboard pages and actions, once their role in the current
 * organization allows `permission` (lib/access/roles.ts): pages read ("read", the default), every
 * server action that changes something asks for "change" (or more), so a viewer calling one anyway
 * gets 403 `forbidden` (the form shows its message) and nothing changes. No live session → the login page.
 */
export async function requireDashboardCtx(permission: Permission = "read"): Promise<Ctx & { actor: { type: "user"; userId: string; role: Role } }> {
  return dashboardCtx(await requireDashboardSession(), permission);
}

/**
 * requireDashboardCtx for a server action. Every dashboard action is bound on its page to the organization
 * the page was rendered for (`action.bind(null, ctx.organizationId)`): when the session has switched to
 * another organization since (in another tab), the action is refused (409) instead of acting on the other one.
 */
export async function requireActionCtx(renderedFor: string, permission: Permission): Promise<Ctx & { actor: { type: "user"; userId: string; role: Role } }> {
  const session = await requireDashboardSession();
  if (renderedFor !== session.organizationId) {
    throw new ConflictError("This page was opened in another organization, and you have switched since: reload it to act here. Nothing was changed.");
  }
  return dashboardCtx(session, permission);
}

async function dashboardCtx({ organizationId, userId, role }: DashboardSession, permission: Permission): Promise<Ctx & { actor: { type: "user"; userId: string; role: Role } }> {
  const ip = clientAddress(await headers());
  const ctx = createCtx(organizationId, { type: "user", userId, role }, undefined, ip) as Ctx & { actor: { type: "user"; userId: string; role: Role } };
  requirePermission(ctx, permission);
  return ctx;
}
