import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { ValidationError } from "@/lib/errors";

/**
 * A digest names the organization's traffic and errors, so it goes only to its members: an address
 * outside the organization is refused (400) rather than confirmed by mail as an alertEmail is.
 */
export async function assertDigestRecipientsAreMembers({ ctx, input }: { ctx: Ctx; input: { recipients: readonly string[] } }): Promise<void> {
  if (input.recipients.length === 0) return;
  const members = await ctx.db.execute<{ email: string }>(sql`
    select u.email from memberships m join users u on u.id = m.user_id
    where m.organization_id = ${ctx.organizationId} and u.email in (select jsonb_array_elements_text(${JSON.stringify(input.recipients)}::jsonb))`);
  const known = new Set(members.map((member) => member.email));
  const strangers = input.recipients.filter((email) => !known.has(email));
  if (strangers.length > 0) {
    throw new ValidationError(`digest.recipients must be members of the organization; not a member: ${strangers.join(", ")}`);
  }
}
