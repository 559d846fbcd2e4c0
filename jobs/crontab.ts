// graphile-worker's crontab for the worker's run() (https://worker.graphile.org/docs/cron): the registry's
// scheduled jobs (lib/queue/job-registry.ts, `schedule`), each tick's job tried its maxAttempts times (1: the
// next tick is the retry), no backfill after downtime.
import { crontabOf } from "@/lib/queue/job-registry";

export const crontab = crontabOf();
