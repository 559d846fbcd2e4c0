import { and, eq, isNull, sql } from "drizzle-orm";
import { invitations } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { idOrNotFound } from "@/lib/ids";

/**
 * Withdraws a pending invitation of ctx's organization: its link says so from then on. One already
 * accepted or withdrawn, or another organization's, is 404. (API.md lists no audit action for it.)
 */
export async function withdrawInvitation({ ctx, input }: { ctx: Ctx; input: { id: unknown } }): Promise<void> {
  const id = idOrNotFound("inv", input.id, "Invitation");
  const withdrawn = await ctx.db
    .update(invitations)
    .set({ withdrawnAt: sql`now()` })
    .where(and(eq(invitations.id, id), eq(invitations.organizationId, ctx.organizationId), isNull(invitations.acceptedAt), isNull(invitations.withdrawnAt)))
    .returning({ id: invitations.id });
  if (withdrawn.length === 0) throw new NotFoundError("Invitation");
}
