import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import { invitations } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { presentInvitation, type InvitationView } from "./present-invitation";

/** Pending invitations of ctx's organization (neither accepted, withdrawn nor expired), oldest first. */
export async function listInvitations({ ctx }: { ctx: Ctx }): Promise<InvitationView[]> {
  const rows = await ctx.db
    .select({ id: invitations.id, email: invitations.email, role: invitations.role, expiresAt: invitations.expiresAt })
    .from(invitations)
    .where(
      and(
        eq(invitations.organizationId, ctx.organizationId),
        isNull(invitations.acceptedAt),
        isNull(invitations.withdrawnAt),
        gt(invitations.expiresAt, sql`now()`),
      ),
    )
    .orderBy(asc(invitations.createdAt), asc(invitations.id));
  return rows.map(presentInvitation);
}
