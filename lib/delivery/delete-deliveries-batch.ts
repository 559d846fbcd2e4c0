import { sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { DELIVERY_REMOVAL_LOCK } from "@/lib/storage/delivery-partitions";

/**
 * Deletes up to `batchSize` deliveries `d` matching `where` (their attempts, payloads and keys go by the
 * trigger inbox_delete_delivery_dependents) and says how many. Rows another transaction holds (a claim, a
 * replay) are skipped, not waited for: the next batch takes them. The purges of deleted endpoints and
 * organizations share it. Deleted by id, not by ctid: deliveries is partitioned, and a ctid names a row
 * only within its partition. Waits while retention counts a week it is dropping (DELIVERY_REMOVAL_LOCK).
 */
export async function deleteDeliveriesBatch(db: DbOrTx, where: SQL, batchSize: number): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock_shared(hashtext(${DELIVERY_REMOVAL_LOCK}))`);
    return deleteBatch(tx, where, batchSize);
  });
}

async function deleteBatch(db: DbOrTx, where: SQL, batchSize: number): Promise<number> {
  const rows = await db.execute<{ n: number }>(sql`
    with gone as (
      delete from deliveries where id = any(array(
        select d.id from deliveries d where ${where}
        limit ${batchSize}
        for update skip locked))
      returning 1
    )
    select count(*)::int as n from gone`);
  return Number(rows[0]?.n ?? 0);
}
