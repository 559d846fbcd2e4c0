// The product's processes as `npm start` runs them (lib/runtime/start.ts): the Next.js web server
// (test/next-server.ts, same Node arguments) and the worker (jobs/worker.ts), each a process of its
// own, every setting at its default unless the bench says otherwise. Not supervised: a bench that
// stops the worker means it.
import { spawn, type ChildProcess } from "node:child_process";
import type postgres from "postgres";
import { startNextServer, type RunningServer } from "@/test/next-server";

export type BenchWorker = ChildProcess & { exited: Promise<void> };

export function startWorker(databaseUrl: string, options: { env?: Record<string, string>; nodeArgs?: string[] } = {}): BenchWorker {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), "--import", "tsx", "jobs/worker.ts"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, INBOX_ALLOW_PRIVATE_DESTINATIONS: "true", ...options.env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  return Object.assign(child, { exited: new Promise<void>((resolve) => child.on("exit", () => resolve())) });
}

/** SIGTERM: the worker lets its attempts in flight finish, then exits. */
export async function stopWorker(worker: BenchWorker | undefined): Promise<void> {
  if (!worker) return;
  if (worker.exitCode === null && worker.signalCode === null) worker.kill("SIGTERM");
  await worker.exited;
}

export interface Product {
  web: RunningServer;
  worker: BenchWorker;
  stop(): Promise<void>;
}

export async function startProduct(options: { databaseUrl: string; port?: number; webEnv?: Record<string, string>; workerEnv?: Record<string, string> }): Promise<Product> {
  const web = await startNextServer({ databaseUrl: options.databaseUrl, port: options.port, env: { AUTH_SECRET: process.env.AUTH_SECRET ?? "bench-auth-secret", ...options.webEnv } });
  const worker = startWorker(options.databaseUrl, { env: options.workerEnv });
  return { web, worker, stop: async () => void (await Promise.all([stopWorker(worker), web.stop()])) };
}

/**
 * Waits until the worker has delivered everything bound for destinations that are not paused (so that
 * a phase starts from a quiet state, or ends once its work is done); false if it gave up.
 */
export async function untilDelivered(sql: postgres.Sql, timeoutMs = 120_000): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const [{ open }] = await sql<{ open: boolean }[]>`select exists (select 1 from deliveries d join destinations dst on dst.id = d.destination_id
      where d.status in ('pending', 'delivering') and not dst.paused) as open`;
    if (!open) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
