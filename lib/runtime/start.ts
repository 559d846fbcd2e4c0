// `npm start`: the whole product on one machine — database (embedded when DATABASE_URL is unset),
// migrations, a Next.js build when sources changed, then the web server and the worker, each
// restarted (1 s doubling to 30 s) when it dies while the other keeps serving.
// SIGTERM/SIGINT: stop both (the worker drains its jobs), stop the database, exit 0.
import type { ChildProcess } from "node:child_process";
import postgres from "postgres";
import { stopOnInvalidConfig } from "@/lib/config/config";
import { markProcessDead } from "@/lib/worker-health/mark-process-dead";
import { workerHealthSettings } from "@/lib/worker-health/settings";
import { migrateDatabase } from "./migrate";
import { ensureNextBuild, nextStartArgs } from "./next-build";
import { resolveEnvironment, type ResolvedEnvironment } from "./resolve-environment";
import { onTerminationSignal, startChild, stopChild, superviseChild, type SupervisedChild } from "./child-processes";
import { describeErrorBriefly } from "@/lib/logging/describe-error";
import { logger } from "@/lib/logging/logger";

const log = (line: string) => logger.info(`[start] ${line}`);
const STOP_TIMEOUT_MS = 30_000;

const building = new Set<ChildProcess>();
const supervised: SupervisedChild[] = [];
let resolved: ResolvedEnvironment | undefined;
let sql: postgres.Sql | undefined;
let stopping = false;

async function shutdown(code: number, reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log(reason);
  await Promise.all([...building].map((child) => stopChild(child, STOP_TIMEOUT_MS)));
  await Promise.all(supervised.map((child) => child.stop(STOP_TIMEOUT_MS)));
  await sql?.end({ timeout: 1 }).catch(() => {});
  await resolved?.embedded?.stop().catch((error) => logger.error(`[start] stopping PostgreSQL: ${describeErrorBriefly(error)}`));
  log(code === 0 ? "stopped" : "stopped after a failure");
  process.exit(code);
}

/**
 * A SIGKILLed worker's heartbeat would say "ok" for up to WORKER_STALE_AFTER_MS: age it at once.
 * When the database is what killed it, keep trying for that long (the restart does not wait past
 * 5 s), so health cannot say "ok" on the dead worker's behalf once the database is back.
 */
async function forgetWorker(child: ChildProcess): Promise<void> {
  if (!child.pid) return;
  sql ??= postgres(resolved!.databaseUrl, { max: 1, connect_timeout: 5, idle_timeout: 10, onnotice: () => {} });
  const giveUpAt = Date.now() + workerHealthSettings().staleAfterMs;
  for (let tries = 0; !stopping; tries++) {
    try {
      await markProcessDead({ pid: child.pid, sql });
      if (tries > 0) log(`marked the dead worker's heartbeat stale after ${tries + 1} tries`);
      return;
    } catch (error) {
      if (tries === 0) log(`cannot mark the dead worker's heartbeat stale yet (${(error as { code?: string })?.code ?? "error"}); retrying`);
      if (Date.now() > giveUpAt) return; // it has gone stale on its own by now
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

async function main(): Promise<void> {
  stopOnInvalidConfig("start");
  resolved = await resolveEnvironment({ allowEmbeddedDatabase: true, log });
  onTerminationSignal((signal) => void shutdown(0, `${signal}: stopping the web server and the worker`));
  // Children are stopped on any exit, even a crash of this process.
  process.on("exit", () => {
    for (const child of [...building, ...supervised.map((s) => s.current())]) child?.kill("SIGTERM");
  });
  const { env, port, databaseUrl, appUrl } = resolved;

  await migrateDatabase(databaseUrl);
  log("database migrated");
  await ensureNextBuild("start", { env, onChild: (child) => building.add(child) });
  if (stopping) return;
  building.clear();

  supervised.push(
    superviseChild({ name: "the web server", log, launch: () => startChild(process.execPath, nextStartArgs(process.cwd(), port), env) }),
    superviseChild({
      name: "the worker",
      log,
      launch: () => startChild(process.execPath, ["--import", "tsx", "jobs/worker.ts"], env),
      onExit: forgetWorker,
    }),
  );
  log(`web server and worker starting; open ${appUrl}`);
}

main().catch((error) => {
  logger.error(`[start] ${describeErrorBriefly(error)}`);
  void shutdown(1, "could not start");
});
