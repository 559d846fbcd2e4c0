import type { z } from "zod";
import { ValidationError } from "@/lib/errors";

/** Parses input with a zod schema; the first problem becomes a ValidationError naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  assertStorableText(input);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join(".");
  const message = issue.code === "unrecognized_keys" ? `Unknown field(s): ${issue.keys.join(", ")}.` : issue.message;
  throw new ValidationError(field && !message.includes(field) ? `${field}: ${message}` : message, result.error.issues);
}

// Control characters (C0, DEL, C1) and UTF-16 halves without their pair: PostgreSQL cannot store a
// NUL in text (a 500 otherwise), and the rest would be changed or hidden on the way in or out.
const CONTROL = /\p{Cc}/u;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function problemIn(text: string): string | null {
  const control = CONTROL.exec(text);
  if (control) return `contains a control character (U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}), which is not accepted`;
  return LONE_SURROGATE.test(text) ? "is not valid Unicode (it holds a lone surrogate)" : null;
}

/**
 * Refuses (400, naming the field) any string inside `value` — object keys included — that holds a
 * control character or a lone surrogate. `where` names the whole value (e.g. "query parameter q").
 */
export function assertStorableText(value: unknown, where?: string, depth = 0): void {
  if (typeof value === "string") {
    const problem = problemIn(value);
    if (problem) throw new ValidationError(`${where ?? "A value"} ${problem}.`);
  } else if (depth > 32 && value !== null && typeof value === "object") {
    throw new ValidationError(`${where ?? "The input"} is nested too deeply.`);
  } else if (Array.isArray(value)) {
    value.forEach((entry, index) => assertStorableText(entry, where ? `${where}[${index}]` : `[${index}]`, depth + 1));
  } else if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, entry] of Object.entries(value)) {
      const field = where ? `${where}.${key}` : key;
      if (problemIn(key)) assertStorableText(key, `The field name ${JSON.stringify(field)}`);
      assertStorableText(entry, field, depth + 1);
    }
  }
}
