// What an invitation link is now, and the words the invite page and a refused accept use for it.
import { and, eq, gt, isNull, sql, type SQL } from "drizzle-orm";
import { invitations } from "@/db/schema";
import type { DbOrTx } from "@/db";
import type { Role } from "@/lib/access/roles";
import { ConflictError, NotFoundError } from "@/lib/errors";
import { sameTokenHash } from "./invitation-token";

export type InvitationState = "pending" | "accepted" | "withdrawn" | "expired";

export interface FoundInvitation {
  id: string;
  organizationId: string;
  organizationName: string;
  email: string;
  role: Role;
  state: InvitationState;
}

export const UNUSABLE_MESSAGES: Record<Exclude<InvitationState, "pending"> | "unknown", string> = {
  unknown: "This invitation link is not valid. Check that it was copied whole, or ask for a new invitation.",
  accepted: "This invitation has already been used. Sign in to reach the organization, or ask for a new invitation.",
  withdrawn: "This invitation was withdrawn by the organization. Ask its owner for a new one if you still need access.",
  expired: "This invitation has expired (links work for 7 days). Ask the organization's owner for a new one.",
};

/** Where an invitation of `organizationId` is still pending: neither accepted, withdrawn nor expired. */
export function pendingInvitationsOf(organizationId: string): SQL {
  return and(
    eq(invitations.organizationId, organizationId),
    isNull(invitations.acceptedAt),
    isNull(invitations.withdrawnAt),
    gt(invitations.expiresAt, sql`now()`),
  )!;
}

/**
 * The invitation whose token hashes to `tokenHash`, with its state, or null. `lock`: FOR UPDATE, so an
 * accept and a withdraw (or two accepts) of one invitation take turns.
 */
export async function findInvitationByTokenHash(db: DbOrTx, tokenHash: string, options: { lock?: boolean } = {}): Promise<FoundInvitation | null> {
  const [row] = await db.execute<{
    id: string;
    organization_id: string;
    organization_name: string;
    email: string;
    role: Role;
    token_hash: string;
    state: InvitationState;
  }>(sql`
    select i.id, i.organization_id, o.name as organization_name, i.email, i.role, i.token_hash,
           case when i.accepted_at is not null then 'accepted'
                when i.withdrawn_at is not null then 'withdrawn'
                when i.expires_at <= now() then 'expired'
                else 'pending' end as state
    from invitations i join organizations o on o.id = i.organization_id
    where i.token_hash = ${tokenHash}
    ${options.lock ? sql`for update of i` : sql``}`);
  // Found by an index on the hash; compared once more in constant time, as the brief for tokens asks.
  if (!row || !sameTokenHash(row.token_hash, tokenHash)) return null;
  return { id: row.id, organizationId: row.organization_id, organizationName: row.organization_name, email: row.email, role: row.role, state: row.state };
}

/** The invitation (locked with `lock`) when it can still be accepted; else the error whose message says why not. */
export async function pendingInvitation(db: DbOrTx, tokenHash: string | null, options: { lock?: boolean } = {}): Promise<FoundInvitation> {
  const found = tokenHash ? await findInvitationByTokenHash(db, tokenHash, options) : null;
  if (!found) throw Object.assign(new NotFoundError("Invitation"), { message: UNUSABLE_MESSAGES.unknown });
  if (found.state !== "pending") throw new ConflictError(UNUSABLE_MESSAGES[found.state]);
  return found;
}
