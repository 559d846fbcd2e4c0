// Keeps the weekly partitions of deliveries, delivery_payloads and attempts (the storage layout:
// db/schema/deliveries.ts, ARCHITECTURE.md): this week's and the next DELIVERY_PARTITION_WEEKS_AHEAD weeks'
// made ahead, by the database function inbox_make_delivery_partitions (db/migrations/0027_delivery_partitions.sql),
// which makes only what is missing. Every migrate makes the weeks ahead (a database that was down for weeks
// starts with its weeks), and the worker's cron every hour (jobs/delivery-partitions.ts). A delivery id whose
// week was never made still goes in: to the default partition, which the next week made then reads. Past
// weeks go when retention has nothing left to keep in them (lib/retention/drop-expired-delivery-weeks.ts), so
// the partitions every query that names no id reads stay those of the weeks still holding deliveries.
import type postgres from "postgres";
import { getSql } from "@/db";
import { config } from "@/lib/config/config";
import { LOCK_NOT_AVAILABLE, withLockTimeout } from "./lock-timeout";
import { logger } from "@/lib/logging/logger";

/** The tables partitioned by week of the delivery id. */
export const PARTITIONED_DELIVERY_TABLES = ["deliveries", "delivery_payloads", "attempts"] as const;
const WEEK_MS = 7 * 86_400_000;

/**
 * Makes the weeks missing; returns how many it made. Attaching a week waits for no reader or writer of the
 * parents, but does for the statements using the default partition (it reads and re-checks it), and the
 * worker's and the dashboard's statements queue behind it meanwhile: given up after 1 s, and tried again
 * at the next run.
 */
export async function makeDeliveryPartitions(sql: postgres.Sql = getSql(), weeksAhead = config().DELIVERY_PARTITION_WEEKS_AHEAD): Promise<number> {
  const made = await withLockTimeout(sql, "1s", async (tx) => {
    const [row] = await tx<{ made: number }[]>`select inbox_make_delivery_partitions(${weeksAhead}) as made`;
    return row?.made ?? 0;
  });
  if (made === null) logger.warn("[partitions] the delivery partitions ahead were not made: the default partition stayed busy; the next run tries again");
  return made ?? 0;
}

/**
 * Held exclusively from a week's count to its drop (lib/retention/drop-expired-delivery-weeks.ts), and shared
 * by each purge batch (lib/delivery/delete-deliveries-batch.ts): no row counted for the drop goes meanwhile
 * by a delete whose trigger counts it too.
 */
export const DELIVERY_REMOVAL_LOCK = "webhook-inbox:delivery-removal";

/** The weeks (partition suffixes, `_wYYYYMMDD`) that ended before `now`, oldest first. */
export async function pastDeliveryWeeks(sql: postgres.Sql, now = new Date()): Promise<string[]> {
  const weeks = await sql<{ suffix: string }[]>`
    select substring(c.relname from '_w[0-9]{8}$') as suffix
    from pg_inherits h join pg_class c on c.oid = h.inhrelid
    where h.inhparent = 'deliveries'::regclass and c.relname ~ '^deliveries_w[0-9]{8}$'
    order by 1`;
  const ended = (suffix: string) =>
    Date.UTC(Number(suffix.slice(2, 6)), Number(suffix.slice(6, 8)) - 1, Number(suffix.slice(8, 10))) + WEEK_MS <= now.getTime();
  return weeks.map((week) => week.suffix).filter(ended);
}

/** The week's deliveries partition, to read it alone (`deliveries_wYYYYMMDD`). */
export const deliveriesOfWeek = (suffix: string) => `deliveries${suffix}`;

/**
 * Drops the week's three partitions. The caller holds lockDeliveryWeek's locks (each drop takes its parent's;
 * taken first for all three, nothing lands in the week between the caller's last look and this).
 */
export async function dropDeliveryWeek(tx: postgres.TransactionSql, suffix: string): Promise<void> {
  for (const table of PARTITIONED_DELIVERY_TABLES) await tx.unsafe(`drop table "${table}${suffix}"`);
}

/**
 * Takes the locks dropDeliveryWeek needs, ACCESS EXCLUSIVE on the three parents and the week's three partitions
 * (not on the other partitions), without ever queueing for them: asked for with NOWAIT, again every few
 * milliseconds, for `patienceMs` at most; false if they never came. A LOCK that waits keeps what it has taken while it waits for the rest, and a statement holding one of
 * the three (ingest's reads deliveries and writes payloads) that needs another then queues behind it: under 300
 * webhooks a second, that cycle made a 200 ms lock_timeout give up in ~45 tries of 50 (bench:retention-weeks),
 * each time after holding ingest for those 200 ms. A NOWAIT try holds nothing if it fails.
 */
export async function lockDeliveryWeek(tx: postgres.TransactionSql, suffix: string, patienceMs = 3_000): Promise<boolean> {
  // The parents alone (ONLY: a VACUUM of this week's payloads can run for minutes) and the week's partitions.
  const tables = [...PARTITIONED_DELIVERY_TABLES.map((table) => `only "${table}"`), ...PARTITIONED_DELIVERY_TABLES.map((table) => `"${table}${suffix}"`)].join(", ");
  for (const giveUp = Date.now() + patienceMs; ; ) {
    try {
      await tx.savepoint((sp) => sp.unsafe(`lock table ${tables} in access exclusive mode nowait`));
      return true;
    } catch (error) {
      if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
      if (Date.now() >= giveUp) return false;
      await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 8));
    }
  }
}
