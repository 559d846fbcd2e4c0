import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";

export type AlertEmailStatus = "member" | "confirmed" | "unconfirmed";

/**
 * Whether alerts may go to `email`: a member's own address needs no confirmation; any other address only
 * once its owner followed the confirmation link (lib/alerts/request-alert-email-confirmation.ts).
 */
export async function alertEmailStatus({ ctx, input }: { ctx: Ctx; input: { email: string } }): Promise<AlertEmailStatus> {
  const email = input.email.trim().toLowerCase();
  const [row] = await ctx.db.execute<{ member: boolean; confirmed: boolean }>(sql`
    select
      exists (select 1 from memberships m join users u on u.id = m.user_id
              where m.organization_id = ${ctx.organizationId} and u.email = ${email}) as member,
      exists (select 1 from alert_email_confirmations c
              where c.organization_id = ${ctx.organizationId} and c.email = ${email} and c.confirmed_at is not null) as confirmed`);
  return row?.member ? "member" : row?.confirmed ? "confirmed" : "unconfirmed";
}
