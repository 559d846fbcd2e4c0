// The web process's shared ingest machinery, built once from the environment (README, Environment):
// the group committer, the body budget and the per-organization rate limiter. On globalThis: Next.js
// may bundle this module more than once, and there must be one of each per process.
import { getIngestSql } from "@/db";
import { positiveIntegerEnv, positiveNumberEnv } from "@/lib/env-number";
import { BodyBudget } from "./body-budget";
import { GroupCommitter } from "./group-commit";
import { IngestRateLimiter } from "./ingest-rate-limit";
import { RefusalPacer } from "./refusal-pacer";

const MiB = 1_048_576;

interface IngestLimits {
  committer: GroupCommitter;
  budget: BodyBudget;
  rateLimiter: IngestRateLimiter;
  refusalPacer: RefusalPacer;
}

const holder = globalThis as unknown as { __inboxIngestLimits?: IngestLimits };

export function ingestLimits(env: NodeJS.ProcessEnv = process.env): IngestLimits {
  if (holder.__inboxIngestLimits) return holder.__inboxIngestLimits;
  const timeoutMs = positiveIntegerEnv(env.INGEST_STORE_TIMEOUT_MS, 8_000);
  const maxConcurrent = positiveIntegerEnv(env.INGEST_COMMIT_CONCURRENCY, 2);
  const commit = {
    timeoutMs,
    statementTimeoutMs: Math.floor(timeoutMs * 0.4),
    maxBatch: 500,
    maxConcurrent,
    largeBodyBytes: positiveIntegerEnv(env.INGEST_LARGE_BODY_BYTES, 256 * 1024),
    maxLargeConcurrent: 1,
  };
  // One connection per shared batch in flight, and one for the large-body lane.
  const sql = () => getIngestSql({ max: maxConcurrent + commit.maxLargeConcurrent, statementTimeoutMs: commit.statementTimeoutMs });
  // ~9 % of what one web process ingests here (~1,300 req/s). bench:neighbours on this 2-core machine: a
  // neighbour admitted at 200/s (its deliveries stored and sent) multiplied another's p50 5–10×, the CPU it
  // takes being what the other's requests wait for; 120/s still lets a tenant send 100/s steadily.
  const rate = positiveNumberEnv(env.ORG_INGEST_RATE, 120);
  holder.__inboxIngestLimits = {
    committer: new GroupCommitter(sql, commit),
    budget: new BodyBudget({ totalBytes: positiveIntegerEnv(env.INGEST_BODY_BUDGET_BYTES, 256 * MiB), floorBytes: MiB, retryAfterSeconds: 1 }),
    rateLimiter: new IngestRateLimiter({
      ratePerSecond: rate, burst: positiveNumberEnv(env.ORG_INGEST_BURST, rate * 2),
      bytesPerRequest: positiveIntegerEnv(env.ORG_INGEST_BYTES_PER_REQUEST, 16 * 1024),
    }),
    refusalPacer: new RefusalPacer({ delayMs: 500, maxPerOrganization: 500, maxTotal: 2_000 }),
  };
  return holder.__inboxIngestLimits;
}
