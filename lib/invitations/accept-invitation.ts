import { sql } from "drizzle-orm";
import { getDb } from "@/db";
import { switchSessionOrganization } from "@/lib/sessions/switch-session-organization";
import { ConflictError } from "@/lib/errors";
import { pendingInvitation } from "./invitation-state";
import { tokenHashOf } from "./invitation-token";
import { joinOrganization } from "./join-organization";

/**
 * An existing account accepts the invitation behind `token`: it joins with the invited role and, when
 * accepted from a signed-in session, that session moves to the organization, in one transaction.
 * Without a session (signing in from the link, lib/auth/auth.ts) the new session starts there. The
 * invitation must be for the account's own email.
 */
export async function acceptInvitation(input: { token: string; userId: string; sessionId?: string; ip?: string | null }): Promise<{ organizationId: string }> {
  return getDb().transaction(async (tx) => {
    const invitation = await pendingInvitation(tx, tokenHashOf(input.token), { lock: true });
    const [user] = await tx.execute<{ email: string }>(sql`select email from users where id = ${input.userId}`);
    if (!user || user.email.toLowerCase() !== invitation.email) {
      throw new ConflictError(`This invitation is for ${invitation.email}; you are signed in as ${user?.email ?? "someone else"}.`);
    }
    await joinOrganization(tx, { invitation, userId: input.userId, ip: input.ip });
    if (input.sessionId) await switchSessionOrganization({ sessionId: input.sessionId, userId: input.userId, organizationId: invitation.organizationId }, tx);
    return { organizationId: invitation.organizationId };
  });
}
