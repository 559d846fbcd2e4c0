// The retention sweep (jobs/apply-retention.ts, every minute): removes what each organization keeps no
// longer (organizations.retention_days, API.md; audit entries: 365 days): past weeks of deliveries nobody
// keeps anything in as whole partitions, then the rest in bounded batches, taking turns between organizations.
import { getSql } from "@/db";
import { createCtx, type Ctx } from "@/lib/context";
import { deleteExpiredAlertNotifications } from "./delete-expired-alert-notifications";
import { deleteExpiredAuditEntries } from "./delete-expired-audit-entries";
import { deleteExpiredDeliveries } from "./delete-expired-deliveries";
import { deleteExpiredIncidents } from "./delete-expired-incidents";
import { deleteExpiredMails } from "./delete-expired-mails";
import { deleteExpiredQuarantinedRequests } from "./delete-expired-quarantined-requests";
import { deleteExpiredRefusedRequests } from "./delete-expired-refused-requests";
import { refreshDeliveryIdFloors } from "@/lib/storage/delivery-id-floor";
import { dropExpiredDeliveryWeeks } from "./drop-expired-delivery-weeks";
import { listOrganizationsWithExpiredRecords } from "./list-organizations-with-expired-records";
import { FULL_BATCH_REST_MS, retentionSettings, type RetentionSettings } from "./retention-settings";

/** What expires, each deleted by a statement of at most `limit` rows of one organization. */
const KINDS = {
  deliveries: deleteExpiredDeliveries,
  mails: deleteExpiredMails,
  incidents: deleteExpiredIncidents,
  alertNotifications: deleteExpiredAlertNotifications,
  refusedRequests: deleteExpiredRefusedRequests,
  quarantinedRequests: deleteExpiredQuarantinedRequests,
  auditEntries: deleteExpiredAuditEntries,
} satisfies Record<string, (args: { ctx: Ctx; input: { limit: number } }) => Promise<number>>;
type Kind = keyof typeof KINDS;

export interface RetentionRun {
  /** False when another sweep was running (nothing done). */
  ran: boolean;
  organizations: number;
  /** Deliveries among them removed with whole weeks; and the Mondays (YYYYMMDD) of those weeks. */
  weeksDropped: { weeks: string[]; deliveries: number };
  deleted: Record<Kind, number>;
  /** False when the run stopped at its budget (or was aborted) with expired rows left for the next run. */
  finished: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One run of the sweep. Organizations take turns (round-robin, in a random order each run): in each
 * round every organization with expired rows gets one batch of each kind it still has, so a million
 * expired deliveries of one organization hold up another's sweep by one batch a round at most. The run
 * stops at `runMs`, `rowsPerRun` or the signal, between two batches; the next run goes on. After each
 * batch that deleted something it rests `pauseFactor` times as long as the batch took (at least
 * FULL_BATCH_REST_MS after a full batch), leaving the database to ingest and delivery. One run at a
 * time across all workers.
 */
export async function applyRetention({
  settings = retentionSettings(),
  signal,
  now,
}: {
  settings?: RetentionSettings;
  signal?: AbortSignal;
  /** Which weeks of partitions are past (tests and benches run ahead of the calendar; expiry is always the database's clock). */
  now?: Date;
} = {}): Promise<RetentionRun> {
  const deleted: Record<Kind, number> = { deliveries: 0, mails: 0, incidents: 0, alertNotifications: 0, refusedRequests: 0, quarantinedRequests: 0, auditEntries: 0 };
  const weeksDropped = { weeks: [] as string[], deliveries: 0 };
  const outcome = await aloneInTheCluster(async () => {
    const deadline = Date.now() + settings.runMs;
    let rows = 0;
    const outOfBudget = () => Date.now() >= deadline || rows >= settings.rowsPerRun || Boolean(signal?.aborted);
    const rest = async (n: number, took: number) => {
      if (n > 0 && settings.pauseFactor > 0) await sleep(Math.max(settings.pauseFactor * took, (FULL_BATCH_REST_MS * n) / settings.batchSize));
    };
    // First the past weeks every organization's retention lets go whole; their keys' deletes count as rows.
    const weeks = await dropExpiredDeliveryWeeks({
      now,
      batchSize: settings.batchSize,
      outOfBudget,
      afterBatch: async (keys, took) => {
        rows += keys;
        await rest(keys, took);
      },
    });
    weeksDropped.weeks.push(...weeks.weeks);
    // The organizations whose oldest deliveries went with a week plan fewer partitions from now on.
    if (weeks.weeks.length > 0) await refreshDeliveryIdFloors();
    weeksDropped.deliveries += weeks.deliveries;
    deleted.deliveries += weeks.deliveries;
    // A week whose drop gave way to a busy table waits for the next run; the row deletes go on.
    if (outOfBudget()) return { organizations: 0, finished: false };
    const turns = (await listOrganizationsWithExpiredRecords()).map((id) => ({ ctx: createCtx(id, { type: "system" }), kinds: new Set(Object.keys(KINDS) as Kind[]) }));
    const organizations = turns.length;
    while (turns.length > 0) {
      for (const turn of [...turns]) {
        for (const kind of [...turn.kinds]) {
          if (outOfBudget()) return { organizations, finished: false };
          const limit = Math.min(settings.batchSize, settings.rowsPerRun - rows);
          const started = performance.now();
          const n = await KINDS[kind]({ ctx: turn.ctx, input: { limit } });
          rows += n;
          deleted[kind] += n;
          if (n < limit) turn.kinds.delete(kind); // all gone, or the rest held by someone: the next run looks again
          await rest(n, performance.now() - started);
        }
        if (turn.kinds.size === 0) turns.splice(turns.indexOf(turn), 1);
      }
    }
    return { organizations, finished: true };
  });
  return outcome ? { ran: true, deleted, weeksDropped, ...outcome } : { ran: false, organizations: 0, deleted, weeksDropped, finished: false };
}

/** The key of the advisory lock a run holds (benchmarks look for it in pg_locks). */
export const SWEEP_LOCK = "webhook-inbox:retention-sweep";

/**
 * Runs `sweep` unless another sweep holds the lock (then null): a run that outlasts its cron minute,
 * or one started by hand, never doubles the load. A session advisory lock on a connection of its own,
 * released with the session if the worker dies.
 */
async function aloneInTheCluster<T>(sweep: () => Promise<T>): Promise<T | null> {
  const connection = await getSql().reserve();
  try {
    const [row] = await connection<{ locked: boolean }[]>`select pg_try_advisory_lock(hashtext(${SWEEP_LOCK})) as locked`;
    if (!row?.locked) return null;
    try {
      return await sweep();
    } finally {
      await connection`select pg_advisory_unlock(hashtext(${SWEEP_LOCK}))`;
    }
  } finally {
    connection.release();
  }
}
