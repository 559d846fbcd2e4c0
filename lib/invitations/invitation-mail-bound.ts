// How many invitation mails may go out: per recipient address from one organization, and per
// organization, over the last 24 hours. The address bound is the organization's own, never shared: one
// counted over every organization would let any organization, inviting a stranger three times, stop all
// others from inviting that person for a day. A sender of many organizations meets the sign-up throttle. Every invitation made counts,
// withdrawn ones too, so invite-withdraw-invite cannot repeat a mail (API.md: 429 `rate_limited`).
import { sql } from "drizzle-orm";
import type { Tx } from "@/db";
import { config } from "@/lib/config/config";
import { TooManyRequestsError } from "@/lib/errors";

const WINDOW_HOURS = 24;

/**
 * Throws 429 with the seconds until a mail may go again when `email`, or the organization, has had its
 * day's invitations. In the inviting transaction, after its per-address lock.
 */
export async function requireInvitationMailAllowed(tx: Tx, input: { organizationId: string; email: string }): Promise<void> {
  const { INVITATION_MAIL_ADDRESS_LIMIT, INVITATION_MAIL_ORGANIZATION_LIMIT } = config();
  const bounds = [
    { limit: INVITATION_MAIL_ADDRESS_LIMIT, column: sql`organization_id = ${input.organizationId} and email = ${input.email}`, who: `this organization has invited ${input.email}` },
    { limit: INVITATION_MAIL_ORGANIZATION_LIMIT, column: sql`organization_id = ${input.organizationId}`, who: "this organization has sent" },
  ];
  for (const { limit, column, who } of bounds) {
    // The limit-th newest invitation of the window: once it is older than the window, one more may go.
    const [row] = await tx.execute<{ seconds_left: number }>(sql`
      select extract(epoch from created_at + make_interval(hours => ${WINDOW_HOURS}) - now())::float8 as seconds_left
      from invitations
      where ${column} and created_at > now() - make_interval(hours => ${WINDOW_HOURS})
      order by created_at desc
      offset ${limit - 1} limit 1`);
    if (row) {
      const seconds = Math.max(1, Math.ceil(row.seconds_left));
      const hours = Math.ceil(seconds / 3600);
      throw new TooManyRequestsError(
        "rate_limited",
        `Too many invitations: ${who} ${limit} in the last ${WINDOW_HOURS} hours (withdrawn ones count). Try again in ${hours === 1 ? "an hour" : `${hours} hours`}.`,
        seconds,
      );
    }
  }
}
