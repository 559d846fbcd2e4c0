import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";

useTestDatabase();

const ADD_KEYED_JOBS = `select count(*)::int as n from graphile_worker.add_jobs(array(
  select json_populate_record(null::graphile_worker.job_spec, json_build_object('identifier', 'plan-test', 'job_key', 'k-' || g || '-' || random()))
  from generate_series(1, $1::int) g))`;

describe("graphile_worker.add_jobs keeps using the job-key index as the jobs table grows", () => {
  it("does not seq-scan the jobs table once a session has called it while the table was small", async () => {
    const connection = await getSql().reserve();
    try {
      await connection.unsafe(`delete from graphile_worker._private_jobs`);
      await connection.unsafe(`vacuum analyze graphile_worker._private_jobs`);
      // Enough calls on a small table for PL/pgSQL to settle on a cached plan for this session.
      for (let i = 0; i < 8; i++) await connection.unsafe(ADD_KEYED_JOBS, [5]);
      await connection.unsafe(ADD_KEYED_JOBS, [20_000]);
      // The backend's own count of sequential scans (not flushed during a transaction), around three calls.
      const seqScans = async () => (await connection.unsafe(`select pg_stat_get_xact_numscans('graphile_worker._private_jobs'::regclass)::int as n`))[0]!.n as number;
      await connection.unsafe(`begin`);
      const before = await seqScans();
      for (let i = 0; i < 3; i++) await connection.unsafe(ADD_KEYED_JOBS, [5]);
      const after = await seqScans();
      await connection.unsafe(`commit`);
      const [jobs] = await connection.unsafe(`select count(*)::int as n from graphile_worker._private_jobs`);
      expect(jobs!.n).toBeGreaterThan(20_000);
      expect(after - before).toBe(0);
    } finally {
      connection.release();
    }
  });
});
