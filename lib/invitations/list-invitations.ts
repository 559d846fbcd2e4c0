import { asc } from "drizzle-orm";
import { invitations } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { pendingInvitationsOf } from "./invitation-state";
import { presentInvitation, type InvitationView } from "./present-invitation";

/** Pending invitations of ctx's organization (neither accepted, withdrawn nor expired), oldest first. */
export async function listInvitations({ ctx }: { ctx: Ctx }): Promise<InvitationView[]> {
  const rows = await ctx.db
    .select({ id: invitations.id, email: invitations.email, role: invitations.role, expiresAt: invitations.expiresAt })
    .from(invitations)
    .where(pendingInvitationsOf(ctx.organizationId))
    .orderBy(asc(invitations.createdAt), asc(invitations.id));
  return rows.map(presentInvitation);
}
