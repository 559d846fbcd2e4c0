// index-bodies: makes stored bodies searchable, an organization's turn at a time (lib/search/index-bodies.ts).
// A chain of passes: each asks for the next (keyed: one waits at a time), right away when it ran out of time,
// else a second later, so that a body waits seconds, not a minute, for the index. An idle pass costs one probe
// of an empty index. The every-minute cron run (jobs/crontab.ts) starts the chain again if it broke (a pass
// failed, or its job was lost).
import { getSql } from "@/db";
import { indexBodies } from "@/lib/search/index-bodies";
import { enqueueRaw } from "@/lib/queue/enqueue";
import { jobSpec, registeredTask } from "@/lib/queue/job-registry";
import { logger } from "@/lib/logging/logger";

const NEXT_PASS_MS = 1_000;

export const indexBodiesTask = registeredTask("index-bodies", async ({ after }, helpers) => {
  const pass = await indexBodies({ after, signal: helpers.abortSignal });
  if (pass.more) logger.info({ jobId: helpers.job.id }, `[index-bodies] ${pass.indexed} bodies made searchable in ${pass.turns} turn(s); more waiting`);
  await enqueueRaw(getSql(), [jobSpec("index-bodies", { after: pass.after }, { runAt: pass.more ? null : new Date(Date.now() + NEXT_PASS_MS) })]);
});
