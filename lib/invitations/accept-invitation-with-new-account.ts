import { sql } from "drizzle-orm";
import { getDb } from "@/db";
import { hashPassword, passwordProblem } from "@/lib/crypto/password";
import { ConflictError, ValidationError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { pendingInvitation } from "./invitation-state";
import { tokenHashOf } from "./invitation-token";
import { joinOrganization } from "./join-organization";

/**
 * Sign-up through an invitation: a new account with the invited email, made a member of the inviting
 * organization (and of no other: no organization of its own), all in one transaction. The caller signs
 * the person in afterwards; their first and only organization is the inviting one.
 */
export async function acceptInvitationWithNewAccount(input: {
  token: string;
  password: string;
  name?: string | null;
  ip?: string | null;
}): Promise<{ userId: string; organizationId: string; email: string }> {
  const tokenHash = tokenHashOf(input.token);
  // Checked before the (deliberately slow) password hash: a dead link costs no hashing.
  await pendingInvitation(getDb(), tokenHash);
  const problem = passwordProblem(input.password);
  if (problem) throw new ValidationError(problem);
  const name = input.name?.trim().slice(0, 200) || null;
  const passwordHash = await hashPassword(input.password);
  const userId = newId("usr");
  return getDb().transaction(async (tx) => {
    const invitation = await pendingInvitation(tx, tokenHash, { lock: true });
    const inserted = await tx.execute(sql`
      insert into users (id, email, name, password_hash) values (${userId}, ${invitation.email}, ${name}, ${passwordHash})
      on conflict (email) do nothing returning id`);
    if (inserted.length === 0) throw new ConflictError("An account with that email already exists. Sign in instead.");
    await joinOrganization(tx, { invitation, userId, ip: input.ip });
    return { userId, organizationId: invitation.organizationId, email: invitation.email };
  });
}
