// `npm start`: the whole product on one machine — database (embedded when DATABASE_URL is unset),
// migrations, a Next.js build when sources changed, then the web server and the worker.
// SIGTERM/SIGINT: stop both (the worker drains its jobs), stop the database, exit 0.
import type { ChildProcess } from "node:child_process";
import { migrateDatabase } from "./migrate";
import { ensureNextBuild, nextStartArgs } from "./next-build";
import { resolveEnvironment, type ResolvedEnvironment } from "./resolve-environment";
import { onTerminationSignal, startChild, stopChild } from "./child-processes";
import { describeErrorBriefly } from "@/lib/logging/describe-error";

const log = (line: string) => console.log(`[start] ${line}`);
const STOP_TIMEOUT_MS = 30_000;

const children = new Set<ChildProcess>();
let resolved: ResolvedEnvironment | undefined;
let stopping = false;

async function shutdown(code: number, reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log(reason);
  await Promise.all([...children].map((child) => stopChild(child, STOP_TIMEOUT_MS)));
  await resolved?.embedded?.stop().catch((error) => console.error(`[start] stopping PostgreSQL: ${describeErrorBriefly(error)}`));
  log(code === 0 ? "stopped" : "stopped after a failure");
  process.exit(code);
}

function supervise(name: string, child: ChildProcess): void {
  children.add(child);
  child.on("exit", (code, signal) => {
    children.delete(child);
    if (!stopping) void shutdown(1, `${name} exited unexpectedly (${signal ?? `exit code ${code}`}); stopping the rest`);
  });
}

async function main(): Promise<void> {
  resolved = await resolveEnvironment({ allowEmbeddedDatabase: true, log });
  onTerminationSignal((signal) => void shutdown(0, `${signal}: stopping the web server and the worker`));
  // Children are stopped on any exit, even a crash of this process.
  process.on("exit", () => children.forEach((child) => child.kill("SIGTERM")));
  const { env } = resolved;

  await migrateDatabase(env.DATABASE_URL!);
  log("database migrated");
  await ensureNextBuild("start", { env, onChild: (child) => children.add(child) });
  if (stopping) return;
  children.clear();

  supervise("the web server", startChild(process.execPath, nextStartArgs(process.cwd(), env.PORT!), env));
  supervise("the worker", startChild(process.execPath, ["--import", "tsx", "jobs/worker.ts"], env));
  log(`web server and worker starting; open ${env.APP_URL}`);
}

main().catch((error) => {
  console.error(`[start] ${describeErrorBriefly(error)}`);
  void shutdown(1, "could not start");
});
