import { and, eq, isNull, sql } from "drizzle-orm";
import { invitations } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { idOrNotFound } from "@/lib/ids";

/**
 * Withdraws a pending invitation of ctx's organization: its link says so from then on, and
 * `member.invitation_withdrawn` is recorded with it. One already accepted or withdrawn, or another
 * organization's, is 404. A withdrawn invitation still counts against the day's bound on invitation mail.
 */
export async function withdrawInvitation({ ctx, input }: { ctx: Ctx; input: { id: unknown } }): Promise<void> {
  const id = idOrNotFound("inv", input.id, "Invitation");
  await withTransaction(ctx, async (ctx) => {
    const [withdrawn] = await ctx.db
      .update(invitations)
      .set({ withdrawnAt: sql`now()` })
      .where(and(eq(invitations.id, id), eq(invitations.organizationId, ctx.organizationId), isNull(invitations.acceptedAt), isNull(invitations.withdrawnAt)))
      .returning({ id: invitations.id, email: invitations.email, role: invitations.role });
    if (!withdrawn) throw new NotFoundError("Invitation");
    await recordAudit(ctx, { action: "member.invitation_withdrawn", target: { type: "invitation", id }, details: { email: withdrawn.email, role: withdrawn.role } });
  });
}
