// A net under what libraries print (Next.js logs a page's error object itself; graphile-worker and
// postgres.js print through console too): each console call becomes one line of the logger, so it is
// redacted like ours — error objects described by describeError, other objects inspected, all text
// through redactLogText. Our own code logs through lib/logging/logger.ts and never calls console.
import { format } from "node:util";
import { describeErrorBriefly } from "./describe-error";
import { logger, printable } from "./logger";

const GUARDED = Symbol.for("webhook-inbox.guarded-console");
const LEVEL_OF = { log: "info", info: "info", warn: "warn", error: "error", debug: "debug", trace: "debug" } as const;

export function guardConsole(): void {
  const target = console as Console & { [GUARDED]?: true };
  if (target[GUARDED]) return;
  for (const [method, level] of Object.entries(LEVEL_OF) as [keyof typeof LEVEL_OF, (typeof LEVEL_OF)[keyof typeof LEVEL_OF]][]) {
    // Always as one text (an object first is a library's value, not the line's fields).
    target[method] = (...args: unknown[]) => logger[level](format(...args.map(printable)));
  }
  target[GUARDED] = true;
}

/**
 * For a process we supervise (the worker): an error nobody caught is logged safely — Node's own
 * report prints every field of the error — and the process exits 1 for `npm start` to restart it.
 */
export function exitSafelyOnUncaughtErrors(name: string): void {
  const die = (kind: string) => (error: unknown) => {
    logger.fatal({ err: error }, `[${name}] ${kind}: ${describeErrorBriefly(error)}`);
    process.exit(1);
  };
  process.on("uncaughtException", die("uncaught exception"));
  process.on("unhandledRejection", die("unhandled rejection"));
}
