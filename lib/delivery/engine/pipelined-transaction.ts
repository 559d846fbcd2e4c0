// A short transaction sent to the database in one go: BEGIN, the statements and COMMIT (and any
// statements to run after the commit) are written together on a reserved connection and run in
// order, so the transaction costs one round trip (and one socket write) instead of one per
// statement, and any lock it takes is held only while the server runs it. Each statement still
// gets its own snapshot (read committed). The statements must not depend on each other's results
// in JavaScript; SQL can chain them.
//
// postgres.js sends a query when it is first awaited (on a later microtask), so the callbacks must
// start each query at once, in order, with `.execute()` (rawRunner does): that fixes the order.
import type postgres from "postgres";

type Promised<T extends readonly unknown[]> = { [K in keyof T]: Promise<T[K]> };

export async function pipelinedTransaction<T extends readonly unknown[], A extends readonly unknown[] = []>(
  sql: postgres.Sql,
  statements: (tx: postgres.ReservedSql) => Promised<T>,
  /** Statements to run once the transaction has committed (each in its own, autocommit). */
  afterCommit?: (tx: postgres.ReservedSql) => Promised<A>,
): Promise<{ results: T; after: A }> {
  const connection = await sql.reserve();
  try {
    const begin = connection`begin`.execute();
    const inside = statements(connection);
    const commit = connection`commit`.execute();
    const after = afterCommit ? afterCommit(connection) : [];
    const settled = await Promise.allSettled([begin, ...inside, commit, ...after]);
    const failed = settled.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult | undefined;
    if (failed) {
      // After a failed statement the server answers the rest of the transaction with errors and
      // turns COMMIT into a rollback; make sure nothing is left open on the connection either way.
      await connection`rollback`.catch(() => {});
      throw failed.reason;
    }
    const values = settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value);
    return { results: values.slice(1, 1 + inside.length) as unknown as T, after: values.slice(2 + inside.length) as unknown as A };
  } finally {
    connection.release();
  }
}
