import { sql } from "drizzle-orm";
import { getDb, type Db } from "@/db";
import { createCtx } from "@/lib/context";
import { describeErrorBriefly } from "@/lib/logging/describe-error";
import { logger } from "@/lib/logging/logger";
import { sendDigest, utcDayAndHour } from "./send-digest";

/** Organizations a run serves at most; the rest go at the next minute's run. */
const PER_RUN = 200;

/**
 * The sweep behind the every-minute cron (jobs/send-daily-digest.ts), as of `now` so tests drive time. The one
 * cross-tenant read: organizations whose digest hour has come today (organizations_digest_hour_utc_index) and
 * whose digest for today has not gone out; each is then sent in its own organization's ctx and transaction,
 * which settles a race with another run (lib/digest/send-digest.ts). One failure is logged and does not stop
 * the others; that organization is tried again at the next run.
 */
export async function sendDueDigests({ input, db = getDb() }: { input: { now: Date }; db?: Db }): Promise<{ sent: number; failed: number }> {
  const { day, hour } = utcDayAndHour(input.now);
  const due = await db.execute<{ id: string }>(sql`
    select o.id from organizations o
    where o.digest_hour_utc is not null and o.digest_hour_utc <= ${hour} and o.deleted_at is null
      and not exists (select 1 from digest_sends s where s.organization_id = o.id and s.day = ${day}::date)
    order by o.digest_hour_utc, o.id limit ${PER_RUN}`);
  let sent = 0;
  let failed = 0;
  for (const { id } of due) {
    try {
      if (await sendDigest({ ctx: createCtx(id, { type: "system" }, db), input: { now: input.now } })) sent++;
    } catch (error) {
      failed++;
      logger.error({ organizationId: id }, `[digest] the daily digest of organization ${id} failed: ${describeErrorBriefly(error)}`);
    }
  }
  return { sent, failed };
}
