import os from "node:os";
import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { getHealth } from "@/lib/health/get-health";
import { useTestDatabase } from "@/test/db";
import { markProcessDead } from "./mark-process-dead";
import { releaseDeadWorkers } from "./release-dead-workers";

useTestDatabase();

describe("a worker process its supervisor saw die stops counting as alive at once", () => {
  it("turns health stale and lets the next sweep release its jobs, leaving other processes' heartbeats alone", async () => {
    const sql = getSql();
    await sql`insert into worker_heartbeats (pool_id, hostname, pid) values ('pool-dead', ${os.hostname()}, 424242)`;
    expect((await getHealth()).body.worker).toBe("ok");
    const [job] = await sql<{ id: string }[]>`select id from graphile_worker.add_job('test-task', '{}'::json)`;
    await sql`update graphile_worker._private_jobs set locked_by = 'pool-dead', locked_at = now() where id = ${job.id}`;

    expect(await markProcessDead({ pid: 424242, sql })).toBe(1);
    expect((await getHealth()).body.worker).toBe("stale");
    // Its lock is seconds old, yet the sweep releases it: the pool's heartbeat says it is dead.
    expect(await releaseDeadWorkers({ staleAfterMs: 30_000 })).toEqual(["pool-dead"]);
    const [row] = await sql`select locked_by from graphile_worker._private_jobs where id = ${job.id}`;
    expect(row.locked_by).toBeNull();
  });

  it("leaves the heartbeat of the same pid on another host", async () => {
    const sql = getSql();
    await sql`insert into worker_heartbeats (pool_id, hostname, pid) values ('pool-other-host', 'another-host', 515151)`;
    expect(await markProcessDead({ pid: 515151, sql })).toBe(0);
    expect((await getHealth()).body.worker).toBe("ok");
  });
});
