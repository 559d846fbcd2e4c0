import type { z } from "zod";
import { ValidationError } from "@/lib/errors";

/** Parses input with a zod schema; the first problem becomes a ValidationError naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join(".");
  const message = issue.code === "unrecognized_keys" ? `Unknown field(s): ${issue.keys.join(", ")}.` : issue.message;
  throw new ValidationError(field && !message.includes(field) ? `${field}: ${message}` : message, result.error.issues);
}
