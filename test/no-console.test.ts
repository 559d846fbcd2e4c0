// Product code logs through the one logger (lib/logging/logger.ts), which redacts every line; a
// console call would bypass its levels and fields. lib/logging holds the net that routes what
// libraries print through console into the logger. Tests, test/, bench/ and e2e/ may use console.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const PRODUCT = ["lib", "app", "jobs", "components", "db", "instrumentation.ts", "proxy.ts"];
const CONSOLE_NET = "lib/logging/";

function productFiles(): string[] {
  return PRODUCT.flatMap((entry) =>
    entry.endsWith(".ts")
      ? [entry]
      : readdirSync(join(ROOT, entry), { withFileTypes: true, recursive: true })
          .filter((file) => file.isFile() && /\.(c|m)?[jt]sx?$/.test(file.name) && !/\.test\.tsx?$/.test(file.name))
          .map((file) => relative(ROOT, join(file.parentPath, file.name))),
  ).filter((file) => !file.startsWith(CONSOLE_NET));
}

describe("no console call in product code", () => {
  it("outside lib/logging: every line goes through the logger", () => {
    const files = productFiles();
    expect(files.length).toBeGreaterThan(200); // the reading finds the product at all
    const calls = files.flatMap((file) =>
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .flatMap((line, index) => (/\bconsole\s*(\.|\[|\))/.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(calls).toEqual([]);
  });
});
