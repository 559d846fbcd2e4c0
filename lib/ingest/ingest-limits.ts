// The web process's shared ingest machinery, built once from the configuration (lib/config/schema.ts,
// "Ingest"): the group committer, the body budget and the per-organization rate limiter. One of each per
// process (processSingleton): Next.js may bundle this module more than once.
import { getIngestSql } from "@/db";
import { config } from "@/lib/config/config";
import { processSingleton } from "@/lib/runtime/process-singleton";
import { BodyBudget } from "./body-budget";
import { GroupCommitter } from "./group-commit";
import { RateLimiter } from "@/lib/http/rate-limiter";
import { RefusalPacer } from "./refusal-pacer";

const MiB = 1_048_576;

interface IngestLimits {
  committer: GroupCommitter;
  budget: BodyBudget;
  rateLimiter: RateLimiter;
  refusalPacer: RefusalPacer;
}

let limits: IngestLimits | undefined;

export function ingestLimits(): IngestLimits {
  return (limits ??= processSingleton("ingest limits", createIngestLimits));
}

function createIngestLimits(): IngestLimits {
  const settings = config();
  const timeoutMs = settings.INGEST_STORE_TIMEOUT_MS;
  const maxConcurrent = settings.INGEST_COMMIT_CONCURRENCY;
  const commit = {
    timeoutMs,
    statementTimeoutMs: Math.floor(timeoutMs * 0.4),
    maxBatch: 500,
    maxConcurrent,
    largeBodyBytes: settings.INGEST_LARGE_BODY_BYTES,
    maxLargeConcurrent: 1,
  };
  // One connection per shared batch in flight, and one for the large-body lane.
  const sql = () => getIngestSql({ max: maxConcurrent + commit.maxLargeConcurrent, statementTimeoutMs: commit.statementTimeoutMs });
  return {
    committer: new GroupCommitter(sql, commit),
    budget: new BodyBudget({ totalBytes: settings.INGEST_BODY_BUDGET_BYTES, floorBytes: MiB, retryAfterSeconds: 1 }),
    rateLimiter: new RateLimiter({
      ratePerSecond: settings.ORG_INGEST_RATE, burst: settings.ORG_INGEST_BURST,
      bytesPerRequest: settings.ORG_INGEST_BYTES_PER_REQUEST,
    }),
    refusalPacer: new RefusalPacer({ delayMs: 500, maxPerOrganization: 500, maxTotal: 2_000 }),
  };
}
