import { getAuthSql } from "@/db";
import type { Bucket } from "./limits";

export interface Refusal {
  key: string;
  retryAfterSeconds: number;
}

/** One in this many attempts also sweeps counters whose window ended over an hour ago. */
const SWEEP_ONE_IN = 200;

/**
 * Counts one attempt in each bucket (one upsert, shared by every web process through PostgreSQL) and
 * says whether any is now over its limit. Counting before the attempt is checked, not after it fails,
 * is what holds the limit against many attempts at once: each sees the count the others made.
 */
export async function countAttempt(buckets: Bucket[]): Promise<Refusal | null> {
  if (buckets.length === 0) return null;
  // Rows locked in key order, so two attempts upserting the same two keys cannot deadlock.
  const sorted = [...buckets].sort((a, b) => (a.key < b.key ? -1 : 1));
  const sql = getAuthSql();
  const rows = await sql<{ key: string; count: number; seconds_left: number }[]>`
    insert into auth_throttles as t (key, count, window_ends_at)
    select b.key, 1, now() + make_interval(secs => b.secs)
    from unnest(${sorted.map((b) => b.key)}::text[], ${sorted.map((b) => b.windowSeconds)}::int[]) as b(key, secs)
    on conflict (key) do update set
      count = case when t.window_ends_at <= now() then 1 else t.count + 1 end,
      window_ends_at = case when t.window_ends_at <= now() then excluded.window_ends_at else t.window_ends_at end
    returning t.key, t.count, extract(epoch from t.window_ends_at - now())::float8 as seconds_left`;
  if (Math.random() * SWEEP_ONE_IN < 1) {
    void sql`
      delete from auth_throttles where key in (
        select key from auth_throttles where window_ends_at < now() - interval '1 hour' limit 500)`.catch(() => {});
  }
  for (const row of rows) {
    const bucket = sorted.find((b) => b.key === row.key)!;
    if (row.count > bucket.limit) return { key: row.key, retryAfterSeconds: Math.max(1, row.seconds_left) };
  }
  return null;
}
