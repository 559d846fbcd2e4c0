import { and, asc, eq } from "drizzle-orm";
import { memberships, users } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import type { AlertEndpoint } from "./alert-endpoint";

/** The endpoint's alertEmail, else the emails of the organization's owners. */
export async function alertRecipients({ ctx, input }: { ctx: Ctx; input: { endpoint: Pick<AlertEndpoint, "alertEmail"> } }): Promise<string[]> {
  if (input.endpoint.alertEmail) return [input.endpoint.alertEmail];
  const owners = await ctx.db
    .select({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, ctx.organizationId), eq(memberships.role, "owner")))
    .orderBy(asc(users.email));
  return owners.map((owner) => owner.email);
}
