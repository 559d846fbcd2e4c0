import { sql } from "drizzle-orm";
import { withTransaction, type Ctx } from "@/lib/context";
import { queueMail } from "@/lib/mail/queue-mail";
import { gatherDigestFigures } from "./gather-digest-figures";
import { renderDigestMail } from "./render-digest-mail";

/** A day's row is kept this long, then removed by a later day's digest of the same organization. */
const DAYS_KEPT = 31;

/** The UTC day of `now` (YYYY-MM-DD) and its hour. */
export function utcDayAndHour(now: Date): { day: string; hour: number } {
  return { day: now.toISOString().slice(0, 10), hour: now.getUTCHours() };
}

/**
 * Queues ctx's organization's digest for the UTC day of `now` unless one went out that day; true when it did.
 * Exactly once: the day's digest_sends row is inserted first, in the transaction that queues the mail, so a
 * concurrent run waits on its key and then inserts nothing, and a run after a restart finds it. The insert also
 * checks the setting as it is now (on, its hour reached, the organization not deleted).
 */
export async function sendDigest({ ctx, input }: { ctx: Ctx; input: { now: Date } }): Promise<boolean> {
  const { day, hour } = utcDayAndHour(input.now);
  return withTransaction(ctx, async (tx) => {
    const [claimed] = await tx.db.execute<{ name: string; recipients: string[] | null }>(sql`
      with due as (
        select o.id, o.name, o.digest_recipients from organizations o
        where o.id = ${ctx.organizationId} and o.deleted_at is null and o.digest_hour_utc <= ${hour}
      ), inserted as (
        insert into digest_sends (organization_id, day) select id, ${day}::date from due
        on conflict (organization_id, day) do nothing
        returning organization_id
      )
      select due.name, due.digest_recipients as recipients from due join inserted on inserted.organization_id = due.id`);
    if (!claimed) return false;
    const to = await digestRecipients({ ctx: tx, input: { chosen: claimed.recipients } });
    if (to.length === 0) return true; // nobody to tell (no member left): the day counts as done all the same
    const figures = await gatherDigestFigures({ ctx: tx, input: { now: input.now } });
    const mail = renderDigestMail({ organizationName: claimed.name, figures });
    const { id } = await queueMail({ ctx: tx, input: { to, ...mail } });
    await tx.db.execute(sql`update digest_sends set mail_id = ${id} where organization_id = ${ctx.organizationId} and day = ${day}::date`);
    await tx.db.execute(sql`delete from digest_sends where organization_id = ${ctx.organizationId} and day < ${day}::date - ${DAYS_KEPT}::int`);
    return true;
  });
}

/**
 * The chosen addresses that still belong to members (one removed since stops getting it); none chosen or none
 * left: the organization's owners, as they are today.
 */
async function digestRecipients({ ctx, input }: { ctx: Ctx; input: { chosen: string[] | null } }): Promise<string[]> {
  const rows = await ctx.db.execute<{ email: string }>(sql`
    select u.email from memberships m join users u on u.id = m.user_id
    where m.organization_id = ${ctx.organizationId}
      and u.email in (select jsonb_array_elements_text(${JSON.stringify(input.chosen ?? [])}::jsonb))
    order by u.email`);
  if (rows.length > 0) return rows.map((row) => row.email);
  const owners = await ctx.db.execute<{ email: string }>(sql`
    select u.email from memberships m join users u on u.id = m.user_id
    where m.organization_id = ${ctx.organizationId} and m.role = 'owner' order by u.email`);
  return owners.map((owner) => owner.email);
}
