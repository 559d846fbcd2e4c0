// Every job the worker runs, each written once: its identifier (= its task's file in jobs/), the payload it
// carries, how many times graphile-worker tries it, its job_key policy and, for the cron's jobs, when they
// run. Jobs are queued with jobSpec (deliverJobSpec for the deliver job, lib/queue/enqueue.ts) and run by
// tasks made with registeredTask; the worker's task list (jobs/index.ts) and crontab (jobs/crontab.ts) are
// derived from here.
import type { JobHelpers, Task, TaskList } from "graphile-worker";
import { z } from "zod";
import { logger } from "@/lib/logging/logger";

/** graphile_worker.job_spec, as JSON. */
export interface JobSpec {
  identifier: string;
  payload: Record<string, unknown>;
  queue_name?: string | null;
  run_at?: string | null;
  max_attempts?: number | null;
  job_key?: string | null;
  priority?: number | null;
}

interface JobDefinition<S extends z.ZodType> {
  /** Checked when the job runs: a job enqueued by an older release may carry an older shape. */
  payload: S;
  /** graphile-worker's attempts (its exponential backoff between them); 1: a failed run is not retried. */
  maxAttempts: number;
  /** job_key: at most one waiting job per key, a later one replacing it. None when absent. */
  key?: (payload: z.input<S>) => string;
  /** graphile-worker's queue_name: its jobs run one at a time (a failed one, waiting for its retry, does not hold the rest). */
  queue?: (payload: z.input<S>) => string;
  /** Lower runs first (graphile-worker's default: 0). */
  priority?: (payload: z.input<S>) => number;
  /** The cron's jobs: when (crontab syntax); one job per tick, no backfill after downtime. */
  schedule?: string;
}

const defineJob = <S extends z.ZodType>(job: JobDefinition<S>) => job;
/** The payload of a job that reads none (the cron adds `_cron`, which is dropped). */
const NO_PAYLOAD = z.object({});
const id = z.string().min(1).max(100);

/** Fresh deliveries run before replays, so a bulk replay never delays new traffic. */
export const PRIORITY = { fresh: 0, replay: 10 } as const;

/** The job_key of a delivery's pending attempt: at most one pending job per delivery. */
export function deliverJobKey(deliveryId: string): string {
  return `deliver:${deliveryId}`;
}

export const JOBS = {
  /** One attempt at a delivery (jobs/deliver.ts); queued through deliverJobSpec or deliverJobSpecSql (lib/queue/enqueue.ts). */
  deliver: defineJob({
    payload: z.object({
      deliveryId: id,
      /** The delivery's destination (its lane: slot lock, caps, pause). Jobs queued before migration 0036 name their endpoint instead. */
      destinationId: id.optional(),
      /** Jobs queued before migration 0036: the endpoint, whose default destination is the delivery's. */
      endpointId: id.optional(),
      trigger: z.enum(["auto", "replay"]).default("auto"),
    }),
    // Our task schedules its own retries; graphile-worker's only cover unexpected failures (database down).
    maxAttempts: 10,
    // One pending job per delivery: a replay replaces a scheduled retry instead of running beside it.
    key: (payload) => deliverJobKey(payload.deliveryId),
    priority: (payload) => (payload.trigger === "replay" ? PRIORITY.replay : PRIORITY.fresh),
  }),
  /** Sends one stored mail (jobs/send-mail.ts). */
  "send-mail": defineJob({
    payload: z.object({ organizationId: z.string().min(1), mailId: z.string().min(1) }),
    // Retried after exp(min(attempt, 10)) seconds: 3 s, 7 s, 20 s, 55 s, … then every ~6 h; 25 cover about four days of SMTP outage.
    maxAttempts: 25,
  }),
  /** Sends one incident notification to one Slack, webhook or PagerDuty alert channel (jobs/notify-alert-channel.ts). */
  "notify-alert-channel": defineJob({
    payload: z.object({ organizationId: id, notificationId: id, channelId: id.optional() }),
    // exp(min(attempt, 10)) seconds apart: 3 s, 7 s, 20 s, 55 s, 2.5 min, … then ~6 h; 12 cover about a day of a channel's outage.
    maxAttempts: 12,
    // One send at a time per channel: an organization's channels (at most MAX_ALERT_CHANNELS) hold that many
    // worker slots at most, however many incidents or tests it makes; channels never wait for each other.
    queue: (payload) => `alert-channel:${payload.channelId ?? payload.organizationId}`,
  }),
  /** Admits an endpoint's quarantined requests that verify now (jobs/reverify-quarantine.ts), after a secret changed. */
  "reverify-quarantine": defineJob({
    payload: z.object({
      organizationId: id,
      endpointId: id,
      /** The second pass, a while after the first: requests other web processes refused with the old secret still cached. */
      again: z.boolean().default(false),
    }),
    maxAttempts: 5,
    // One pending pass per endpoint and kind: rotating twice in a row re-verifies once.
    key: (payload) => `reverify-quarantine:${payload.endpointId}${payload.again ? ":again" : ""}`,
  }),
  /** Removes a deleted organization's data in bounded runs, then its row (jobs/delete-organization.ts). */
  "delete-organization": defineJob({
    payload: z.object({
      organizationId: id,
      /**
       * The last pass, a while after the rest: it removes what ingest stored meanwhile through an endpoint
       * it still had cached, then the organization's row, whose deletion takes the small tables with it.
       */
      final: z.boolean().default(false),
    }),
    maxAttempts: 25,
  }),
  /** Removes a deleted endpoint's deliveries in bounded runs (jobs/purge-endpoint-deliveries.ts). */
  "purge-endpoint-deliveries": defineJob({
    payload: z.object({
      organizationId: id,
      endpointId: id,
      /** The last pass, a while after the rest: it removes deliveries stored after the first passes by ingest that still had the endpoint cached. */
      sweep: z.boolean().default(false),
    }),
    maxAttempts: 25,
  }),
  /**
   * Ends a deleted destination's deliveries in bounded runs, then removes its row (jobs/end-destination-deliveries.ts).
   * Queued by deleteDestination in its transaction; a run that leaves work queues the next itself.
   */
  "end-destination-deliveries": defineJob({
    payload: z.object({ organizationId: id, destinationId: id }),
    maxAttempts: 25,
    // One waiting run per destination: a run asking for the next while another waits moves that one.
    key: (payload) => `end-destination-deliveries:${payload.destinationId}`,
  }),
  /** Unparks a rate-limited destination's deliveries as its tokens come (jobs/wake-rate-limited.ts). */
  "wake-rate-limited": defineJob({
    // dueAt: when its token is due (ms since 1970); a run started before waits for it.
    payload: z.object({ destinationId: id, dueAt: z.number().optional() }),
    maxAttempts: 5,
    // One waiting wake per destination: a later ask moves it to its own time.
    key: (payload) => `wake-rate-limited:${payload.destinationId}`,
  }),
  /**
   * Ends a pull destination's leases that ran out unacknowledged, as failed attempts (jobs/expire-leases.ts).
   * Queued by each pull that leased something, due when its leases end; unkeyed, as each pull's leases end at their own time.
   */
  "expire-leases": defineJob({ payload: z.object({ destinationId: id }), maxAttempts: 5 }),
  /** Evaluates every endpoint's alerts as of now (jobs/check-alerts.ts); the next tick is the retry. */
  "check-alerts": defineJob({ payload: NO_PAYLOAD, maxAttempts: 1, schedule: "* * * * *" }),
  /** Queues the daily digests whose hour has come (jobs/send-daily-digest.ts); once a day each, the next tick the retry. */
  "send-daily-digest": defineJob({ payload: NO_PAYLOAD, maxAttempts: 1, schedule: "* * * * *" }),
  /** The safety net for deliveries that lost their job (jobs/rescue-deliveries.ts). */
  "rescue-deliveries": defineJob({ payload: NO_PAYLOAD, maxAttempts: 1, schedule: "* * * * *" }),
  /** Keeps the table /api/metrics reads its counters from small (jobs/roll-up-delivery-counters.ts). */
  "roll-up-delivery-counters": defineJob({ payload: NO_PAYLOAD, maxAttempts: 1, schedule: "* * * * *" }),
  /** A bounded run of the retention sweep (jobs/apply-retention.ts). */
  "apply-retention": defineJob({ payload: NO_PAYLOAD, maxAttempts: 1, schedule: "* * * * *" }),
  /**
   * Vacuums and analyses our tables where the server's autovacuum does not (jobs/vacuum-own-tables.ts). A pass
   * that had work asks for the next, keyed so one waits at a time (a later request moves it); a failed pass is
   * not retried: the next minute's tick starts the chain again.
   */
  "vacuum-own-tables": defineJob({ payload: NO_PAYLOAD, maxAttempts: 1, key: () => "vacuum-own-tables", schedule: "* * * * *" }),
  /**
   * Makes stored bodies searchable (jobs/index-bodies.ts): a chain of passes, each asking for the next after
   * `after`, keyed so one waits at a time; a failed pass is not retried: the next tick starts the chain again.
   */
  "index-bodies": defineJob({
    // Lenient: a pass without a readable cursor (the cron's) starts from the beginning.
    payload: z.object({ after: z.string().catch("") }).catch({ after: "" }),
    maxAttempts: 1,
    key: () => "index-bodies",
    schedule: "* * * * *",
  }),
  /** Makes the weekly delivery partitions ahead and refreshes the delivery id floors (jobs/delivery-partitions.ts), at 17 past. */
  "delivery-partitions": defineJob({ payload: NO_PAYLOAD, maxAttempts: 1, schedule: "17 * * * *" }),
};

export type JobName = keyof typeof JOBS;
/** What a job is queued with (defaults not yet applied). */
export type JobPayload<N extends JobName> = z.input<(typeof JOBS)[N]["payload"]>;
/** What its task reads (defaults applied). */
export type ParsedJobPayload<N extends JobName> = z.output<(typeof JOBS)[N]["payload"]>;

/** A job as the registry's own code sees each of them. */
type AnyJob = JobDefinition<z.ZodType<unknown, Record<string, unknown>>>;
const jobOf = (name: JobName) => JOBS[name] as unknown as AnyJob;

/**
 * The spec that queues job `name` (enqueue it in the transaction of the change it follows, lib/queue/enqueue.ts).
 * `runAt`: not before then (default: at once). `keyed: false` leaves out the job's key (see deliverJobSpec).
 */
export function jobSpec<N extends JobName>(name: N, payload: JobPayload<N>, options: { runAt?: Date | null; keyed?: boolean } = {}): JobSpec {
  const job = jobOf(name);
  const values = payload as Record<string, unknown>;
  return {
    identifier: name,
    payload: { ...values },
    job_key: job.key && options.keyed !== false ? job.key(values) : null,
    ...(job.queue ? { queue_name: job.queue(values) } : {}),
    run_at: options.runAt ? options.runAt.toISOString() : null,
    ...(job.priority ? { priority: job.priority(values) } : {}),
    max_attempts: job.maxAttempts,
  };
}

/** A task of the worker, with the job it runs. */
export type RegisteredTask<N extends JobName> = Task & { readonly job: N };

/** The task that runs job `name`: its payload parsed first; one it cannot read is logged and dropped (retrying cannot fix it). */
export function registeredTask<N extends JobName>(name: N, run: (payload: ParsedJobPayload<N>, helpers: JobHelpers) => Promise<void>): RegisteredTask<N> {
  const schema = jobOf(name).payload;
  const task: Task = async (payload, helpers) => {
    const parsed = schema.safeParse(payload);
    if (!parsed.success) {
      logger.error({ jobId: helpers.job.id }, `[${name}] job ${helpers.job.id} has an unreadable payload, dropped: ${parsed.error.issues[0]?.message}`);
      return;
    }
    await run(parsed.data as ParsedJobPayload<N>, helpers);
  };
  return Object.assign(task, { job: name });
}

/** The worker's task list: one task for every job of the registry, under its identifier (the compiler checks both). */
export function taskListOf(tasks: { [N in JobName]: RegisteredTask<N> }): TaskList {
  return tasks;
}

/** The worker's crontab: one line per scheduled job, each tick's job tried maxAttempts times. */
export function crontabOf(): string {
  return (Object.keys(JOBS) as JobName[])
    .flatMap((name) => {
      const { schedule, maxAttempts } = jobOf(name);
      return schedule ? [`${schedule} ${name} ?max=${maxAttempts}`] : [];
    })
    .join("\n");
}
