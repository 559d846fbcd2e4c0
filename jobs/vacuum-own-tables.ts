// vacuum-own-tables: every minute (jobs/crontab.ts), vacuums and analyses our tables where the server's
// autovacuum does not (lib/maintenance/vacuum-own-tables.ts). When it has tables to look after it comes
// back every VACUUM_OWN_TABLES_INTERVAL_SECONDS (a busy table gains tens of thousands of dead tuples in a
// minute): one keyed job waits at a time, however many runs ask for it. Otherwise one cheap catalog read.
import type { Task } from "graphile-worker";
import { getSql } from "@/db";
import { ownVacuumJobSpec, ownVacuumSettings, vacuumOwnTables } from "@/lib/maintenance/vacuum-own-tables";
import { enqueueRaw } from "@/lib/queue/enqueue";

export const vacuumOwnTablesTask: Task = async (_payload, helpers) => {
  const settings = ownVacuumSettings();
  const pass = await vacuumOwnTables({ settings, signal: helpers.abortSignal });
  if (pass.looked === 0) return;
  await enqueueRaw(getSql(), [ownVacuumJobSpec(new Date(Date.now() + settings.intervalSeconds * 1_000))]);
};
