// Calling dashboard server actions and pages' verbs as functions, as a signed-in member: the test names
// a real server-side session (sessions row), and auth() answers what Auth.js's callbacks would for a
// cookie naming it (lib/auth/auth.ts): the session and the role read from the database by checkSession,
// on every call. Only the JWT cookie and Next.js's request scope are stood in for. A test file wires it:
//
//   vi.mock("next/headers", async () => (await import("@/test/dashboard-session")).nextHeadersModule);
//   vi.mock("next/cache", async () => (await import("@/test/dashboard-session")).nextCacheModule);
//   vi.mock("@/lib/auth/auth", async () => (await import("@/test/dashboard-session")).authModule);
import { isRedirectError } from "next/dist/client/components/redirect-error";
import { getSql } from "@/db";
import type { Role } from "@/lib/access/roles";
import { checkSession } from "@/lib/sessions/check-session";
import { startSession } from "@/lib/sessions/start-session";
import { ForbiddenError } from "@/lib/errors";
import { createOrganizationWithOwner } from "@/lib/organizations/create-organization-with-owner";
import { randomBytes } from "node:crypto";

/** The session the next dashboard call runs as (null: signed out). */
export const currentDashboardSession: { sessionId: string | null } = { sessionId: null };

export const authModule = {
  auth: async () => {
    const sessionId = currentDashboardSession.sessionId;
    if (!sessionId) return null;
    const live = await checkSession(sessionId);
    return live ? { userId: live.userId, organizationId: live.organizationId, role: live.role ?? undefined, sessionId } : null;
  },
  signIn: async () => undefined,
  signOut: async () => undefined,
  handlers: {},
};

export const nextHeadersModule = {
  headers: async () => new Headers({ "x-forwarded-for": "203.0.113.7" }),
  cookies: async () => ({ get: () => undefined, getAll: () => [], set: () => undefined, delete: () => undefined, has: () => false }),
};

export const nextCacheModule = { revalidatePath: () => undefined, revalidateTag: () => undefined };

/** Runs `call` signed in with `sessionId`. */
export async function asSession<T>(sessionId: string | null, call: () => Promise<T>): Promise<T> {
  const previous = currentDashboardSession.sessionId;
  currentDashboardSession.sessionId = sessionId;
  try {
    return await call();
  } finally {
    currentDashboardSession.sessionId = previous;
  }
}

/** A new user who is a member of `organizationId` with `role` (they also own an organization of their own), and a session working there. */
export async function memberWithSession(organizationId: string, role: Role) {
  const email = `${role}-${randomBytes(6).toString("hex")}@example.test`;
  const own = await createOrganizationWithOwner({ email, password: "a-long-test-password", organizationName: `${role}'s own` });
  await getSql()`insert into memberships (organization_id, user_id, role) values (${organizationId}, ${own.userId}, ${role})`;
  const sessionId = await startSession({ userId: own.userId, organizationId });
  return { userId: own.userId, email, ownOrganizationId: own.organizationId, sessionId };
}

export const FORBIDDEN_MESSAGE = new ForbiddenError().message;

/**
 * What a dashboard action answered: "allowed" (done, or a redirect after it), "forbidden" (the role
 * check refused it: the form's message, or a thrown ForbiddenError for a form without state), or
 * the other error it gave.
 */
export async function actionOutcome(call: () => Promise<unknown>): Promise<string> {
  try {
    const result = (await call()) as { error?: string } | undefined;
    if (result?.error) return result.error === FORBIDDEN_MESSAGE ? "forbidden" : `error: ${result.error}`;
    return "allowed";
  } catch (error) {
    if (isRedirectError(error)) return "allowed";
    if (error instanceof ForbiddenError) return "forbidden";
    throw error;
  }
}

/** A FormData from plain fields. */
export function formOf(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
}
