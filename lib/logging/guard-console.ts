// A net under every log line a process prints, ours or a library's (Next.js logs a page's error
// object itself; graphile-worker and postgres.js print through console too): error objects are
// described by describeError, other objects inspected, and all text passes redactLogText. Our own
// call sites already log safely; this catches the ones we do not write.
import { inspect } from "node:util";
import { describeError, redactLogText } from "./describe-error";

const GUARDED = Symbol.for("webhook-inbox.guarded-console");

function safe(arg: unknown): unknown {
  if (arg instanceof Error) return describeError(arg);
  if (typeof arg === "string") return redactLogText(arg);
  if (arg !== null && typeof arg === "object") return redactLogText(inspect(arg, { depth: 4, breakLength: Infinity }));
  return arg;
}

export function guardConsole(): void {
  const target = console as Console & { [GUARDED]?: true };
  if (target[GUARDED]) return;
  for (const method of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    const original = target[method].bind(console);
    target[method] = (...args: unknown[]) => original(...args.map(safe));
  }
  target[GUARDED] = true;
}

/**
 * For a process we supervise (the worker): an error nobody caught is logged safely — Node's own
 * report prints every field of the error — and the process exits 1 for `npm start` to restart it.
 */
export function exitSafelyOnUncaughtErrors(name: string): void {
  const die = (kind: string) => (error: unknown) => {
    console.error(`[${name}] ${kind}: ${describeError(error)}`);
    process.exit(1);
  };
  process.on("uncaughtException", die("uncaught exception"));
  process.on("unhandledRejection", die("unhandled rejection"));
}
