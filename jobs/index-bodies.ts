// index-bodies: every minute (jobs/crontab.ts), and again at once while bodies wait, makes stored bodies
// searchable, an organization's turn at a time (lib/delivery/index-bodies.ts). A pass that found bodies asks
// for the next one (keyed: one waits at a time), right away when it ran out of time, else a second later;
// a pass that found none ends the chain until the next minute's run.
import type { Task } from "graphile-worker";
import { getSql } from "@/db";
import { indexBodies, indexBodiesJobSpec } from "@/lib/delivery/index-bodies";
import { enqueueRaw } from "@/lib/queue/enqueue";

const NEXT_PASS_MS = 1_000;

export const indexBodiesTask: Task = async (payload, helpers) => {
  const after = typeof (payload as { after?: unknown } | null)?.after === "string" ? (payload as { after: string }).after : "";
  const pass = await indexBodies({ after, signal: helpers.abortSignal });
  if (pass.more) console.log(`[index-bodies] ${pass.indexed} bodies made searchable in ${pass.turns} turn(s); more waiting`);
  if (pass.indexed === 0 && !pass.more) return;
  await enqueueRaw(getSql(), [indexBodiesJobSpec(pass.after, pass.more ? null : new Date(Date.now() + NEXT_PASS_MS))]);
};
