// lib/queue alone names graphile-worker's schema (ARCHITECTURE.md, "The queue"): its SQL is written against
// one version's layout (checkQueueVersion), so every statement that adds jobs or touches its tables takes
// its text from lib/queue (a spliced fragment such as addJobsSql is fine). Tests, test/, bench/ and e2e/ may
// name it.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const PRODUCT = ["lib", "app", "jobs", "components", "db", "instrumentation.ts", "proxy.ts", "next.config.ts"];
const QUEUE = "lib/queue/";

function productFiles(): string[] {
  return PRODUCT.flatMap((entry) =>
    /\.ts$/.test(entry)
      ? [entry]
      : readdirSync(join(ROOT, entry), { withFileTypes: true, recursive: true })
          .filter((file) => file.isFile() && /\.((c|m)?[jt]sx?|sql)$/.test(file.name) && !/\.test\.tsx?$/.test(file.name))
          .map((file) => relative(ROOT, join(file.parentPath, file.name))),
  );
}

describe("graphile-worker's schema is named in lib/queue only", () => {
  it("no product file outside lib/queue writes graphile_worker.", () => {
    const files = productFiles();
    const naming = (file: string) => readFileSync(join(ROOT, file), "utf8").includes("graphile_worker.");
    expect(files.filter((file) => file.startsWith(QUEUE) && naming(file)).length).toBeGreaterThan(0); // the reading finds it at all
    const outside = files
      .filter((file) => !file.startsWith(QUEUE))
      .flatMap((file) =>
        readFileSync(join(ROOT, file), "utf8")
          .split("\n")
          .flatMap((line, index) => (line.includes("graphile_worker.") ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
      );
    expect(outside).toEqual([]);
  });
});
