// What a piece of code reads from `deliveries`, as PostgreSQL counts it: entries returned by any of the table's
// indexes and rows of its sequential scans, in one transaction that the code runs in. For tests that a figure
// does not grow with a tenant's deliveries.
import type { Tx } from "@/db";
import { type Ctx, withTransaction } from "@/lib/context";

export async function countingDeliveriesReads<T>(ctx: Ctx, fn: (ctx: Ctx & { db: Tx }) => Promise<T>): Promise<{ result: T; entries: number }> {
  return withTransaction(ctx, async (txCtx) => {
    // This backend's counts not yet flushed hold earlier statements' too (they are flushed only between
    // transactions): the difference.
    const entries = async () =>
      Number((await txCtx.db.execute<{ n: string }>(`
        select pg_stat_get_xact_tuples_returned('deliveries'::regclass)
          + (select sum(pg_stat_get_xact_tuples_returned(indexrelid)) from pg_index where indrelid = 'deliveries'::regclass) as n`))[0]!.n);
    const before = await entries();
    const result = await fn(txCtx);
    return { result, entries: (await entries()) - before };
  });
}
