// Auth.js: email + password (Credentials). Credentials needs the `jwt` strategy, so the JWT names a
// server-side session (lib/sessions) that every request checks: sign-out and a password change
// end sessions for real, and a removed membership stops working on the next request.
import NextAuth from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { PasswordHashingBusyError } from "@/lib/crypto/password";
import { DomainError, TooManyRequestsError } from "@/lib/errors";
import { clientAddress, throttleAddress } from "@/lib/http/client-address";
import { acceptInvitation } from "@/lib/invitations/accept-invitation";
import { authenticateUser } from "@/lib/auth/authenticate-user";
import { describeError } from "@/lib/logging/describe-error";
import { checkSession } from "@/lib/sessions/check-session";
import { endSession } from "@/lib/sessions/end-session";
import { SESSION_DAYS, startSession } from "@/lib/sessions/start-session";
import { SignInRefused } from "./sign-in-refused";
import type { Role } from "@/lib/access/roles";
import { logger } from "@/lib/logging/logger";

declare module "next-auth" {
  interface Session {
    userId?: string;
    /** Null: the user belongs to no organization (any more) and may only create one. */
    organizationId?: string | null;
    /** The user's role in organizationId, checked on every request. */
    role?: Role;
    sessionId?: string;
    /** The session could not be checked (database unavailable): neither signed in nor signed out. */
    sessionCheckFailed?: boolean;
  }
  interface User {
    organizationId?: string | null;
  }
}

export const { handlers, auth, signIn, signOut } = NextAuth({
  trustHost: true,
  // A wrong password (or a throttled one) is an expected answer, not a server error worth a stack trace.
  logger: { error: (error) => void ((error as { type?: string }).type === "CredentialsSignin" || logger.error(`[auth] ${describeError(error)}`)) },
  session: { strategy: "jwt", maxAge: SESSION_DAYS * 24 * 60 * 60 },
  pages: { signIn: "/login" },
  providers: [
    Credentials({
      // invitationToken: signing in from an invitation link (app/invite/[token]) joins first and works there.
      credentials: { email: { type: "email" }, password: { type: "password" }, invitationToken: { type: "text" } },
      async authorize(credentials, request) {
        try {
          const address = clientAddress(request.headers);
          const user = await authenticateUser({ email: credentials?.email, password: credentials?.password, address: throttleAddress(request.headers) });
          if (!user) return null;
          const organizationId = credentials?.invitationToken
            ? (await acceptInvitation({ token: String(credentials.invitationToken), userId: user.userId, ip: address })).organizationId
            : user.organizationId;
          // An account in no organization has nowhere to work: only an invitation lets it in.
          return organizationId ? { id: user.userId, email: user.email, name: user.name, organizationId } : null;
        } catch (error) {
          if (error instanceof TooManyRequestsError) throw new SignInRefused(error.message, "too_many_attempts");
          if (error instanceof PasswordHashingBusyError) throw new SignInRefused(error.message, "busy");
          if (error instanceof DomainError) throw new SignInRefused(error.message, "invitation");
          throw error;
        }
      },
    }),
  ],
  callbacks: {
    async jwt({ token, user }) {
      if (user) {
        const sessionId = await startSession({ userId: user.id!, organizationId: user.organizationId ?? null });
        return { ...token, sid: sessionId, userId: user.id, organizationId: user.organizationId };
      }
      // A token from before sessions were kept on the server names none: signed out.
      if (typeof token.sid !== "string") return null;
      try {
        const live = await checkSession(token.sid);
        if (!live) return null; // Auth.js clears the cookie
        const { checkFailed: _, ...rest } = token;
        return { ...rest, userId: live.userId, organizationId: live.organizationId, role: live.role };
      } catch (error) {
        // The database is unreachable: keep the cookie (a blip must not sign everyone out) but open nothing.
        logger.error(`[auth] session check failed: ${(error as { code?: string }).code ?? (error as Error).name}`);
        return { ...token, checkFailed: true };
      }
    },
    session({ session, token }) {
      if (token.checkFailed) return { ...session, sessionCheckFailed: true };
      return {
        ...session,
        userId: token.userId as string | undefined,
        organizationId: token.organizationId as string | null | undefined,
        role: (token.role ?? undefined) as Role | undefined,
        sessionId: token.sid as string | undefined,
      };
    },
  },
  events: {
    async signOut(message) {
      const sid = "token" in message ? message.token?.sid : undefined;
      if (typeof sid === "string") await endSession(sid);
    },
  },
});
