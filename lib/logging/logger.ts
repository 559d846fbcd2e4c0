// The one logger. Every line is a JSON object (`time`, `level`, `pid`, `msg`, and the ids bound where
// known: organizationId, endpointId, deliveryId, jobId), or a readable line when standard output is a
// terminal. LOG_LEVEL is the lowest level written (default info); debug and info go to standard output,
// warn and above to standard error, as console.log and console.error did.
// Redaction is the logger's, so no call site can forget it: a message passes redactLogText, an error
// anywhere in a line is described by describeError (never its attached query, parameters or detail),
// string fields pass redactLogText, and header- and secret-like fields are censored.
import { format, inspect } from "node:util";
import pino, { type Logger } from "pino";
import { config } from "@/lib/config/config";
import { describeError, describeErrorBriefly, redactLogText } from "./describe-error";

export type { Logger };

/** Fields that may hold a credential or a payload whatever their value looks like: censored at any depth. */
const SECRET_FIELDS = ["headers", "authorization", "cookie", "password", "secret", "outboundSecret", "apiKey", "token", "body", "parameters"];
const IS_SECRET_FIELD = new Set(SECRET_FIELDS);
/** What redactLogText looks for needs a colon (URLs, "Failed query:", quoted values) or a slash (link tokens): ids skip it. */
const MAY_HOLD_SECRET = /[:/]/;
const CENSORED = "[redacted]";
const MAX_DEPTH = 4;
const WARN = 40;

/** LOG_LEVEL (lib/config/schema.ts lists the levels pino knows, and silent). */
const levelFromEnvironment = (): string => config().LOG_LEVEL;

/** A field's value made safe to print: errors described, text redacted, objects walked and their secret-like fields censored. */
function safeField(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return MAY_HOLD_SECRET.test(value) ? redactLogText(value) : value;
  if (value instanceof Error) return describeError(value);
  if (value === null || typeof value !== "object" || value instanceof Date) return value;
  if (depth >= MAX_DEPTH) return "[object not logged]";
  if (Array.isArray(value)) return value.map((item) => safeField(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, IS_SECRET_FIELD.has(key) ? CENSORED : safeField(item, depth + 1)]));
}

/** One argument of a printf-like call (console's) made printable without its attached fields. */
export function printable(arg: unknown): unknown {
  if (arg instanceof Error) return describeError(arg);
  if (arg !== null && typeof arg === "object") return inspect(arg, { depth: MAX_DEPTH, breakLength: Infinity });
  return arg;
}

/**
 * A call's arguments as (fields?, message): an error first becomes `{ err }` with its brief description
 * as the message unless one is given; extra arguments are formatted into the message (never left for
 * pino to stringify whole); the message passes redactLogText.
 */
function safeArguments(args: unknown[]): [Record<string, unknown>, string?] | [string?] {
  const [first, ...rest] = args;
  let fields: Record<string, unknown> | undefined;
  let parts = args;
  if (first instanceof Error) [fields, parts] = [{ err: first }, rest];
  else if (first !== null && typeof first === "object") [fields, parts] = [first as Record<string, unknown>, rest];
  let message = parts.length === 0 ? undefined : parts.length === 1 && typeof parts[0] === "string" ? parts[0] : format(...parts.map(printable));
  if (message === undefined && fields?.err !== undefined) message = describeErrorBriefly(fields.err);
  if (message !== undefined) message = redactLogText(message);
  return fields ? [fields, message] : [message];
}

/** `12:00:01.234 INFO  [worker] … deliveryId=dlv_…`, the error's description on the lines below. */
function readableLine(json: string): string {
  const { time, level, msg, pid: _pid, err, ...fields } = JSON.parse(json) as Record<string, unknown>;
  const extra = Object.entries(fields).map(([key, value]) => ` ${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
  return `${String(time).slice(11, 23)} ${String(level).toUpperCase().padEnd(5)} ${msg ?? ""}${extra.join("")}${err === undefined ? "" : `\n  ${String(err)}`}\n`;
}

// A terminal means a person reads along. Not NODE_ENV: `next start` sets it to production in every web
// server, a developer's `npm start` included. LOG_FORMAT=json keeps JSON on a terminal too.
const readable = process.stdout.isTTY === true && config().LOG_FORMAT !== "json";
let redirect: ((line: string) => void) | undefined;
let everythingToStandardError = false;

// pino fills in lastLevel before each write (needsMetadataGsym), so one stream can pick stdout or stderr.
const destination = {
  [pino.symbols.needsMetadataGsym]: true as const,
  lastLevel: 0,
  lastTime: "",
  lastMsg: "",
  lastObj: {},
  lastLogger: undefined as unknown as Logger,
  write(line: string): void {
    if (redirect) return redirect(line);
    const stream = everythingToStandardError || this.lastLevel >= WARN ? process.stderr : process.stdout;
    stream.write(readable ? readableLine(line) : line); // synchronous for files, pipes and terminals on Linux: nothing is lost at exit
  },
};

export const logger: Logger = pino(
  {
    level: levelFromEnvironment(),
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }), log: (fields) => safeField(fields) as Record<string, unknown> },
    serializers: { err: describeError },
    // Top-level paths only: they also cover a child's bound fields, which skip formatters.log; pino's
    // wildcard paths cost ~4 µs a line, and safeField censors deeper fields anyway.
    redact: { paths: SECRET_FIELDS, censor: CENSORED },
    hooks: {
      logMethod(args, method) {
        method.apply(this, safeArguments(args) as Parameters<typeof method>);
      },
    },
  },
  destination,
);

/** For a command whose standard output is its result (`npm run inbox`): every log line goes to standard error. */
export function logToStandardError(): void {
  everythingToStandardError = true;
}

/** For tests (test/captured-logs.ts): each line goes to `onLine` as JSON instead of the terminal, until the returned function is called. */
export function redirectLogLines(onLine: (line: string) => void): () => void {
  redirect = onLine;
  return () => {
    if (redirect === onLine) redirect = undefined;
  };
}
