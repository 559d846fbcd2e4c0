// `npm start`: the whole product on one machine — database (embedded when DATABASE_URL is unset),
// migrations, a Next.js build when sources changed, then the web server and the worker, each
// restarted (1 s doubling to 30 s) when it dies while the other keeps serving.
// SIGTERM/SIGINT: stop both (the worker drains its jobs), stop the database, exit 0.
import type { ChildProcess } from "node:child_process";
import postgres from "postgres";
import { markProcessDead } from "@/lib/worker-health/mark-process-dead";
import { migrateDatabase } from "./migrate";
import { ensureNextBuild, nextStartArgs } from "./next-build";
import { resolveEnvironment, type ResolvedEnvironment } from "./resolve-environment";
import { onTerminationSignal, startChild, stopChild, superviseChild, type SupervisedChild } from "./child-processes";
import { describeErrorBriefly } from "@/lib/logging/describe-error";

const log = (line: string) => console.log(`[start] ${line}`);
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
  await resolved?.embedded?.stop().catch((error) => console.error(`[start] stopping PostgreSQL: ${describeErrorBriefly(error)}`));
  log(code === 0 ? "stopped" : "stopped after a failure");
  process.exit(code);
}

/** A SIGKILLed worker's heartbeat would say "ok" for up to 30 s: age it at once (best effort). */
async function forgetWorker(child: ChildProcess): Promise<void> {
  if (!child.pid) return;
  sql ??= postgres(resolved!.env.DATABASE_URL!, { max: 1, connect_timeout: 5, idle_timeout: 10, onnotice: () => {} });
  try {
    await markProcessDead({ pid: child.pid, sql });
  } catch (error) {
    // The database may be what killed it; the heartbeat then goes stale on its own.
    log(`could not mark the dead worker's heartbeat stale (${(error as { code?: string })?.code ?? "error"})`);
  }
}

async function main(): Promise<void> {
  resolved = await resolveEnvironment({ allowEmbeddedDatabase: true, log });
  onTerminationSignal((signal) => void shutdown(0, `${signal}: stopping the web server and the worker`));
  // Children are stopped on any exit, even a crash of this process.
  process.on("exit", () => {
    for (const child of [...building, ...supervised.map((s) => s.current())]) child?.kill("SIGTERM");
  });
  const { env } = resolved;

  await migrateDatabase(env.DATABASE_URL!);
  log("database migrated");
  await ensureNextBuild("start", { env, onChild: (child) => building.add(child) });
  if (stopping) return;
  building.clear();

  supervised.push(
    superviseChild({ name: "the web server", log, launch: () => startChild(process.execPath, nextStartArgs(process.cwd(), env.PORT!), env) }),
    superviseChild({
      name: "the worker",
      log,
      launch: () => startChild(process.execPath, ["--import", "tsx", "jobs/worker.ts"], env),
      onExit: forgetWorker,
    }),
  );
  log(`web server and worker starting; open ${env.APP_URL}`);
}

main().catch((error) => {
  console.error(`[start] ${describeErrorBriefly(error)}`);
  void shutdown(1, "could not start");
});
