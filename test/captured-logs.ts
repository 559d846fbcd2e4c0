// The logger's lines, captured for the rest of the current test instead of printed: for tests that
// check what the product logs (lib/logging/logger.ts writes every line; nothing logs through console).
import { onTestFinished } from "vitest";
import { redirectLogLines } from "@/lib/logging/logger";

export interface LogLine {
  level: "trace" | "debug" | "info" | "warn" | "error" | "fatal";
  msg?: string;
  [field: string]: unknown;
}

export interface CapturedLogs {
  /** Every line so far, parsed. */
  readonly lines: LogLine[];
  /** The messages so far, in order. */
  messages(): string[];
  /** Everything written so far, as the JSON lines themselves. */
  text(): string;
}

export function captureLogs(): CapturedLogs {
  const raw: string[] = [];
  const lines: LogLine[] = [];
  onTestFinished(
    redirectLogLines((line) => {
      raw.push(line);
      lines.push(JSON.parse(line) as LogLine);
    }),
  );
  return { lines, messages: () => lines.map((line) => line.msg ?? ""), text: () => raw.join("") };
}
