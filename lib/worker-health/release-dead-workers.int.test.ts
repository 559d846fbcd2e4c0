import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { releaseDeadWorkers } from "./release-dead-workers";

useTestDatabase();

const STALE_AFTER_MS = 30_000;

/** A job locked by `poolId` `lockedAgo` ago (postgres interval text). */
async function lockedJob(poolId: string, lockedAgo: string, queueName: string | null = null): Promise<string> {
  const sql = getSql();
  const [job] = await sql<{ id: string }[]>`select id from graphile_worker.add_job('test-task', '{}'::json, ${queueName})`;
  await sql`
    update graphile_worker._private_jobs set locked_by = ${poolId}, locked_at = now() - ${lockedAgo}::interval
    where id = ${job.id}`;
  if (queueName) {
    await sql`
      update graphile_worker._private_job_queues set locked_by = ${poolId}, locked_at = now() - ${lockedAgo}::interval
      where queue_name = ${queueName}`;
  }
  return job.id;
}

async function heartbeat(poolId: string, ago: string) {
  await getSql()`
    insert into worker_heartbeats (pool_id, hostname, pid, last_seen_at) values (${poolId}, 'test', 1, now() - ${ago}::interval)`;
}

async function lockOf(jobId: string) {
  const [row] = await getSql()`select locked_by, locked_at from graphile_worker._private_jobs where id = ${jobId}`;
  return row.locked_by as string | null;
}

async function heartbeatExists(poolId: string) {
  const rows = await getSql()`select 1 from worker_heartbeats where pool_id = ${poolId}`;
  return rows.length > 0;
}

describe("releases the jobs of a pool whose heartbeat went stale", () => {
  it("unlocks its job and its queue, and deletes the stale heartbeat", async () => {
    await heartbeat("pool-stale", "45 seconds");
    const jobId = await lockedJob("pool-stale", "2 minutes", "stale-queue");
    const released = await releaseDeadWorkers({ staleAfterMs: STALE_AFTER_MS });
    expect(released).toContain("pool-stale");
    expect(await lockOf(jobId)).toBeNull();
    const [queue] = await getSql()`select locked_by from graphile_worker._private_job_queues where queue_name = 'stale-queue'`;
    expect(queue.locked_by).toBeNull();
    expect(await heartbeatExists("pool-stale")).toBe(false);
  });
});

describe("releases a job locked long ago by a pool that has no heartbeat at all", () => {
  it("unlocks it", async () => {
    const jobId = await lockedJob("pool-vanished", "1 minute");
    expect(await releaseDeadWorkers({ staleAfterMs: STALE_AFTER_MS })).toContain("pool-vanished");
    expect(await lockOf(jobId)).toBeNull();
  });
});

describe("leaves a live pool's jobs alone", () => {
  it("keeps a job locked for hours by a pool with a fresh heartbeat", async () => {
    await heartbeat("pool-alive", "1 second");
    const jobId = await lockedJob("pool-alive", "3 hours");
    expect(await releaseDeadWorkers({ staleAfterMs: STALE_AFTER_MS })).not.toContain("pool-alive");
    expect(await lockOf(jobId)).toBe("pool-alive");
    expect(await heartbeatExists("pool-alive")).toBe(true);
  });

  it("keeps a job locked just now by a pool whose first heartbeat is not written yet", async () => {
    const jobId = await lockedJob("pool-starting", "1 second");
    expect(await releaseDeadWorkers({ staleAfterMs: STALE_AFTER_MS })).not.toContain("pool-starting");
    expect(await lockOf(jobId)).toBe("pool-starting");
  });
});
