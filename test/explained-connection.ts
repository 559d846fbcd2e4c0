// A connection that runs statements as the worker does (generic plans) and hands back each statement's plan,
// as it ran, in JSON (auto_explain at notice level): for tests of which partitions a hot-path statement holds.
import postgres from "postgres";

export interface ExplainedConnection {
  sql: postgres.Sql;
  /** The plans of the statements run since the last `clear()`, in order. */
  plans: string[];
  clear(): void;
}

export async function explainedConnection(url: string): Promise<ExplainedConnection> {
  const plans: string[] = [];
  const sql = postgres(url, { max: 1, onnotice: (n) => plans.push(n.message), connection: { plan_cache_mode: "force_generic_plan" } });
  await sql`load 'auto_explain'`;
  await sql`select set_config('auto_explain.log_min_duration', '0', false), set_config('auto_explain.log_level', 'notice', false),
    set_config('auto_explain.log_format', 'json', false)`;
  return { sql, plans, clear: () => void (plans.length = 0) };
}
