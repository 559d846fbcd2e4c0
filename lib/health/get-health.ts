import type postgres from "postgres";
import { getSql } from "@/db";
import { workerHealthSettings } from "@/lib/worker-health/settings";

export type Health =
  | { status: 200; body: { database: "ok"; worker: "ok" | "stale" } }
  | { status: 503; body: { database: "unavailable"; worker: "unknown" } };

const DATABASE_TIMEOUT_MS = 2_000;

/** Is the database answering (within ~2 s), and has any worker recorded a heartbeat lately? */
export async function getHealth({ sql = getSql() }: { sql?: postgres.Sql } = {}): Promise<Health> {
  const { staleAfterMs } = workerHealthSettings();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), DATABASE_TIMEOUT_MS);
  });
  const query = sql<{ fresh: boolean }[]>`
    select exists (
      select 1 from worker_heartbeats where last_seen_at > now() - make_interval(secs => ${staleAfterMs / 1000})
    ) as fresh`;
  try {
    const result = await Promise.race([query, timeout]);
    if (result === "timeout") return { status: 503, body: { database: "unavailable", worker: "unknown" } };
    return { status: 200, body: { database: "ok", worker: result[0].fresh ? "ok" : "stale" } };
  } catch {
    return { status: 503, body: { database: "unavailable", worker: "unknown" } };
  } finally {
    clearTimeout(timer);
  }
}
