// Where a database's time goes, without pg_stat_statements (it needs a server restart to load): samples
// pg_stat_activity every few milliseconds and counts, per statement (its first line, numbers folded) and
// wait event, how often a product backend was seen running it. A share of samples is a share of the
// backends' active time, waits on locks and I/O included.
import type postgres from "postgres";
import { BENCH_APPLICATION_NAME } from "./cpu";

export interface ActiveQueryShare {
  statement: string;
  wait: string;
  /** Average number of backends seen running it at once. */
  backends: number;
}

const normalise = (query: string) =>
  query.replace(/\s+/g, " ").replace(/\$\d+/g, "$").replace(/\b\d+\b/g, "N").slice(0, 160);

export class ActiveQuerySampler {
  private readonly counts = new Map<string, number>();
  private samples = 0;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(private readonly database: { admin: postgres.Sql; name: string }, private readonly everyMs = 20) {}

  start(): this {
    this.counts.clear();
    this.samples = 0;
    this.timer = setInterval(() => void this.sample(), this.everyMs);
    return this;
  }

  private async sample(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const rows = await this.database.admin<{ query: string; wait: string | null }[]>`
        select query, wait_event_type || ':' || wait_event as wait from pg_stat_activity
        where datname = ${this.database.name} and state = 'active' and backend_type = 'client backend'
          and application_name is distinct from ${BENCH_APPLICATION_NAME} and pid <> pg_backend_pid()`;
      this.samples++;
      for (const row of rows) {
        const key = `${normalise(row.query)}\u0000${row.wait ?? "cpu"}`;
        this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
      }
    } catch {
      // a sample lost is a sample lost
    } finally {
      this.busy = false;
    }
  }

  /** The statements seen most, with how many backends ran each on average. */
  stop(top = 10): ActiveQueryShare[] {
    clearInterval(this.timer);
    return [...this.counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, count]) => {
        const [statement, wait] = key.split("\u0000") as [string, string];
        return { statement, wait, backends: count / Math.max(1, this.samples) };
      });
  }
}
