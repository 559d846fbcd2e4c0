// DDL on a table ingest writes to waits for the statements in flight, and every statement that comes
// after queues behind it meanwhile: such DDL asks for its lock with a short lock_timeout and gives up
// (to try again later) rather than hold ingest for the length of someone's long query.
import type postgres from "postgres";

/** SQLSTATE lock_not_available: a lock_timeout ran out, or a NOWAIT lock was refused. */
export const LOCK_NOT_AVAILABLE = "55P03";

/** `fn` in a transaction whose lock waits end after `timeout` (e.g. "200ms"); null when one did. */
export async function withLockTimeout<T>(sql: postgres.Sql, timeout: string, fn: (tx: postgres.TransactionSql) => Promise<T>): Promise<T | null> {
  try {
    return (await sql.begin(async (tx) => {
      await tx`select set_config('lock_timeout', ${timeout}, true)`;
      return fn(tx);
    })) as T;
  } catch (error) {
    if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) return null;
    throw error;
  }
}
