// Auth.js: email + password (Credentials) with JWT sessions that carry the user's organization.
import NextAuth from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { authenticateUser } from "@/lib/organizations/authenticate-user";
import { describeError } from "@/lib/logging/describe-error";

declare module "next-auth" {
  interface Session {
    userId?: string;
    organizationId?: string;
  }
  interface User {
    organizationId?: string;
  }
}

export const { handlers, auth, signIn, signOut } = NextAuth({
  trustHost: true,
  // A wrong password is an expected answer, not a server error worth a stack trace.
  logger: { error: (error) => void ((error as { type?: string }).type === "CredentialsSignin" || console.error(`[auth] ${describeError(error)}`)) },
  session: { strategy: "jwt" },
  pages: { signIn: "/login" },
  providers: [
    Credentials({
      credentials: { email: { type: "email" }, password: { type: "password" } },
      async authorize(credentials) {
        const { email, password } = credentials as { email?: string; password?: string };
        if (!email || !password) return null;
        const user = await authenticateUser(email, password);
        return user ? { id: user.userId, email: user.email, name: user.name, organizationId: user.organizationId } : null;
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user) {
        token.userId = user.id;
        token.organizationId = user.organizationId;
      }
      return token;
    },
    session({ session, token }) {
      return { ...session, userId: token.userId as string | undefined, organizationId: token.organizationId as string | undefined };
    },
  },
});
