// The one way an error object reaches a log line. Logging the object itself prints every field
// attached to it: postgres.js errors carry the statement's `query` and `parameters` (destination
// URLs with credentials, key hashes), drizzle's DrizzleQueryError puts the query and its params in
// its very message, and PostgreSQL's `detail`/`where` repeat row values. Only the name, the code,
// a message made safe and the stack's frames are kept.

const MAX_CAUSES = 3;

/** `scheme://user:password@host` → `scheme://***@host`, wherever it appears in a text. */
export function stripUrlCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, "$1***@");
}

function safeMessage(error: Error & { code?: unknown }): string {
  // drizzle's wrapper: "Failed query: <sql>\nparams: <values>" — the cause says what went wrong.
  if (error.name === "DrizzleQueryError" || error.message.startsWith("Failed query:")) return "Failed query (statement and parameters not logged)";
  let message = error.message;
  // PostgreSQL's data exceptions (SQLSTATE class 22) quote the offending value after a colon:
  // `invalid input syntax for type timestamp with time zone: "…"`. Keep the sentence, not the value.
  if (typeof error.code === "string" && /^22[0-9A-Z]{3}$/.test(error.code) && message.includes(": ")) {
    message = `${message.slice(0, message.indexOf(": "))} (value not logged)`;
  }
  // JSON.parse quotes the text it could not parse: `Unexpected token 'x', "…" is not valid JSON`.
  if (error.name === "SyntaxError") message = message.replace(/"[\s\S]*" is not valid JSON/, "(text not logged) is not valid JSON");
  return stripUrlCredentials(message);
}

function frames(error: Error): string {
  // The stack repeats the (unsafe) message first, over as many lines as it has: keep the frames only.
  return (error.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line)).slice(0, 12).join("\n");
}

/**
 * One safe, multi-line description of an error: `Name [code]: message`, the stack's frames, and the
 * same for its causes. Never an attached field (query, parameters, detail, where, headers, body).
 */
export function describeError(error: unknown, depth = 0): string {
  if (!(error instanceof Error)) {
    const type = error === null ? "null" : typeof error;
    return typeof error === "string" ? stripUrlCredentials(error) : `a thrown ${type} (not logged)`;
  }
  const code = (error as { code?: unknown }).code;
  const head = `${error.name}${typeof code === "string" || typeof code === "number" ? ` [${code}]` : ""}: ${safeMessage(error as Error & { code?: unknown })}`;
  const stack = frames(error);
  const parts = [stack ? `${head}\n${stack}` : head];
  if (error instanceof AggregateError && depth < MAX_CAUSES) {
    error.errors.slice(0, 3).forEach((inner) => parts.push(`  inner: ${describeError(inner, depth + 1)}`));
  }
  if (error.cause !== undefined && depth < MAX_CAUSES) parts.push(`  cause: ${describeError(error.cause, depth + 1)}`);
  return parts.join("\n");
}

/** The first line of describeError: for one-line logs. */
export function describeErrorBriefly(error: unknown): string {
  const lines = describeError(error).split("\n");
  const causes = lines.filter((line) => /^\s+(cause|inner): /.test(line)).map((line) => line.trim());
  return [lines[0], ...causes].join("; ");
}

/**
 * For log text made elsewhere from an error (graphile-worker's "Failed task … with error '…'" and its
 * stack): drizzle's "Failed query: … params: …", values quoted by PostgreSQL and URL credentials taken out.
 */
export function redactLogText(text: string): string {
  return stripUrlCredentials(
    text
      .replace(/Failed query: [\s\S]*?\nparams: [^\n]*/g, "Failed query (statement and parameters not logged)")
      // PostgreSQL's data-exception messages quoting the value (what describeError cuts by SQLSTATE).
      .replace(QUOTED_VALUE, "$1 (value not logged)")
      // A link's token in a path (an invitation, an alert-email confirmation) opens what it names.
      .replace(LINK_TOKEN, "$1(token not logged)"),
  );
}

const LINK_TOKEN = /(\/(?:invite|confirm-alert-email)\/)[A-Za-z0-9_-]{43}/g;

const QUOTED_VALUE =
  /(invalid input syntax for type [^:\n]+|invalid input value for enum [^:\n]+|date\/time field value out of range|invalid byte sequence for encoding "[^"\n]+"): (?:"[^"\n]*"|0x[0-9a-f]+(?: 0x[0-9a-f]+)*)/gi;
