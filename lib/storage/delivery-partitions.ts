// Keeps the weekly partitions of deliveries, delivery_payloads and attempts (the storage layout:
// db/schema/deliveries.ts, ARCHITECTURE.md): this week's and the next DELIVERY_PARTITION_WEEKS_AHEAD weeks'
// made ahead, by the database function inbox_make_delivery_partitions (db/migrations/0027_delivery_partitions.sql),
// which makes only what is missing; and the weeks past that retention has emptied dropped, so the number of
// partitions every query that names no id reads stays that of the weeks still holding deliveries. Every
// migrate makes the weeks ahead (a database that was down for weeks starts with its weeks), and the worker's
// cron does both every hour (jobs/delivery-partitions.ts). A delivery id whose week was never made still goes
// in: to the default partition, which the next week made then reads.
import type postgres from "postgres";
import { getSql } from "@/db";
import { positiveIntegerEnv } from "@/lib/env-number";
import { withLockTimeout } from "./lock-timeout";

export const deliveryPartitionWeeksAhead = (env: Record<string, string | undefined> = process.env) =>
  positiveIntegerEnv(env.DELIVERY_PARTITION_WEEKS_AHEAD, 1);

const TABLES = ["deliveries", "delivery_payloads", "attempts"] as const;
const WEEK_MS = 7 * 86_400_000;

/**
 * Makes the weeks missing; returns how many it made. Attaching a week waits for no reader or writer of the
 * parents, but does for the statements using the default partition (it reads and re-checks it), and the
 * worker's and the dashboard's statements queue behind it meanwhile: given up after 1 s, and tried again
 * at the next run.
 */
export async function makeDeliveryPartitions(sql: postgres.Sql = getSql(), weeksAhead = deliveryPartitionWeeksAhead()): Promise<number> {
  const made = await withLockTimeout(sql, "1s", async (tx) => {
    const [row] = await tx<{ made: number }[]>`select inbox_make_delivery_partitions(${weeksAhead}) as made`;
    return row?.made ?? 0;
  });
  if (made === null) console.error("[partitions] the delivery partitions ahead were not made: the default partition stayed busy; the next run tries again");
  return made ?? 0;
}

/**
 * Drops the three partitions of each week that ended before `now` and holds no row any more (retention and
 * purges delete deliveries by batches, and their payloads, attempts and keys with them); returns the weeks
 * dropped. A week still holding one delivery stays. Dropping a partition takes its parent's ACCESS EXCLUSIVE
 * lock, for as long as it waits for the statements in flight: given up after 200 ms (ingest waits that
 * long at most), and tried again at the next run.
 */
export async function dropEmptiedDeliveryWeeks(sql: postgres.Sql = getSql(), now = new Date()): Promise<string[]> {
  const weeks = await sql<{ suffix: string }[]>`
    select substring(c.relname from '_w[0-9]{8}$') as suffix
    from pg_inherits h join pg_class c on c.oid = h.inhrelid
    where h.inhparent = 'deliveries'::regclass and c.relname ~ '^deliveries_w[0-9]{8}$'
    order by 1`;
  const dropped: string[] = [];
  for (const { suffix } of weeks) {
    const monday = Date.UTC(Number(suffix.slice(2, 6)), Number(suffix.slice(6, 8)) - 1, Number(suffix.slice(8, 10)));
    if (monday + WEEK_MS > now.getTime()) break; // this week and the weeks ahead
    // A first look with no lock: a week still holding rows (most of them) costs nobody a wait.
    if (!(await isEmptyWeek(sql, suffix))) continue;
    const gone = await withLockTimeout(sql, "200ms", async (tx) => {
      // The lock each drop takes on its parent, taken first for all three, then the look again: nothing can
      // land in the week between that look and the drop.
      await tx`lock table deliveries, delivery_payloads, attempts in access exclusive mode`;
      if (!(await isEmptyWeek(tx, suffix))) return false;
      for (const table of TABLES) await tx.unsafe(`drop table "${table}${suffix}"`);
      return true;
    });
    if (gone === null) break; // someone kept the table busy: the next run, not the next week
    if (gone) dropped.push(suffix.slice(2));
  }
  return dropped;
}

/** Whether the three partitions of the week `suffix` hold no row (retention's emptied partitions are vacuumed: few pages). */
async function isEmptyWeek(sql: postgres.Sql | postgres.TransactionSql, suffix: string): Promise<boolean> {
  for (const table of TABLES) {
    const [row] = await sql`select 1 from ${sql(table + suffix)} limit 1`;
    if (row) return false;
  }
  return true;
}
