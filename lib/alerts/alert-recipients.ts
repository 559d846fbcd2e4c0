import { and, asc, eq } from "drizzle-orm";
import { memberships, users } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import type { AlertEndpoint } from "./alert-endpoint";
import { alertEmailStatus } from "./alert-email-status";

/**
 * The endpoint's alertEmail when it is a member's address or a confirmed one; else (no alertEmail, or one
 * still awaiting confirmation) the emails of the organization's owners, so no alert is lost meanwhile.
 */
export async function alertRecipients({ ctx, input }: { ctx: Ctx; input: { endpoint: Pick<AlertEndpoint, "alertEmail"> } }): Promise<string[]> {
  const { alertEmail } = input.endpoint;
  if (alertEmail && (await alertEmailStatus({ ctx, input: { email: alertEmail } })) !== "unconfirmed") return [alertEmail];
  const owners = await ctx.db
    .select({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, ctx.organizationId), eq(memberships.role, "owner")))
    .orderBy(asc(users.email));
  return owners.map((owner) => owner.email);
}
