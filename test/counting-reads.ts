// What a piece of code reads from a table, as PostgreSQL counts it: entries returned by any of the table's
// indexes and rows of its sequential scans, in one transaction that the code runs in. For tests that a figure
// does not grow with a tenant's deliveries, nor with other tenants' rows.
import type { Tx } from "@/db";
import { type Ctx, withTransaction } from "@/lib/context";

/**
 * The relations that hold `table`'s rows, as SQL: the table itself, or for a partitioned one (deliveries,
 * delivery_payloads, attempts) its partitions. PostgreSQL counts reads there; a parent's own counts stay 0,
 * so a test reading them would pass whatever the code read.
 */
export const leavesOf = (table: string) => `(select relid from pg_partition_tree('${table}'::regclass) where isleaf)`;

export async function countingReads<T>(ctx: Ctx, table: string, fn: (ctx: Ctx & { db: Tx }) => Promise<T>): Promise<{ result: T; entries: number }> {
  return withTransaction(ctx, async (txCtx) => {
    // This backend's counts not yet flushed hold earlier statements' too (they are flushed only between
    // transactions): the difference.
    const entries = async () =>
      Number((await txCtx.db.execute<{ n: string }>(`
        select coalesce((select sum(pg_stat_get_xact_tuples_returned(relid)) from ${leavesOf(table)} t), 0)
          + coalesce((select sum(pg_stat_get_xact_tuples_returned(indexrelid)) from pg_index where indrelid in ${leavesOf(table)}), 0) as n`))[0]!.n);
    const before = await entries();
    const result = await fn(txCtx);
    return { result, entries: (await entries()) - before };
  });
}
