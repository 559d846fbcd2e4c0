// vacuum-own-tables: every minute (jobs/crontab.ts), vacuums and analyses our tables where the server's
// autovacuum does not (lib/maintenance/vacuum-own-tables.ts). When it has tables to look after it comes
// back every VACUUM_OWN_TABLES_INTERVAL_SECONDS (a busy table gains tens of thousands of dead tuples in a
// minute): one keyed job waits at a time, however many runs ask for it. Otherwise one cheap catalog read.
import { getSql } from "@/db";
import { ownVacuumSettings, vacuumOwnTables } from "@/lib/maintenance/vacuum-own-tables";
import { enqueueRaw } from "@/lib/queue/enqueue";
import { jobSpec, registeredTask } from "@/lib/queue/job-registry";

export const vacuumOwnTablesTask = registeredTask("vacuum-own-tables", async (_payload, helpers) => {
  const settings = ownVacuumSettings();
  const pass = await vacuumOwnTables({ settings, signal: helpers.abortSignal });
  if (pass.looked === 0) return;
  await enqueueRaw(getSql(), [jobSpec("vacuum-own-tables", {}, { runAt: new Date(Date.now() + settings.intervalSeconds * 1_000) })]);
});
