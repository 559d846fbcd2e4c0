// A short transaction sent to the database in one go: BEGIN, the statements and COMMIT are
// written together on a reserved connection and run in order, so the transaction costs one round
// trip (and one socket write) instead of one per statement, and any lock it takes is held only
// while the server runs it. Each statement still gets its own snapshot (read committed). The
// statements must not depend on each other's results in JavaScript; SQL can chain them.
//
// postgres.js sends a query when it is first awaited (on a later microtask), so `statements` must
// start each query at once, in order, with `.execute()` (rawRunner does): that fixes the order.
import type postgres from "postgres";

export async function pipelinedTransaction<T extends readonly unknown[]>(
  sql: postgres.Sql,
  statements: (tx: postgres.ReservedSql) => { [K in keyof T]: Promise<T[K]> },
): Promise<T> {
  const connection = await sql.reserve();
  try {
    const begin = connection`begin`.execute();
    const pending = statements(connection);
    const commit = connection`commit`.execute();
    const settled = await Promise.allSettled([begin, ...pending, commit]);
    const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    if (failed) {
      // After a failed statement the server answers the rest with errors and turns COMMIT into a
      // rollback; make sure nothing is left open on the connection either way.
      await connection`rollback`.catch(() => {});
      throw failed.reason;
    }
    return settled.slice(1, -1).map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as unknown as T;
  } finally {
    connection.release();
  }
}
