// Every variable is read through lib/config (its schema, its bounds, its start-up check): no other product
// file reads process.env.X. Writing one is allowed (the CLI hands the embedded database's URL to the code it
// runs; the web server's peer hook marks what it did), and so is handing process.env whole to a child.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const PRODUCT_DIRS = ["lib", "app", "jobs", "db", "components"];
const PRODUCT_ROOT_FILES = ["instrumentation.ts", "proxy.ts", "next.config.ts"];

/** Where Next.js's own meaning of a variable is what the code asks about. */
const ALLOWED: Record<string, string[]> = {
  "instrumentation.ts": ["NEXT_RUNTIME"], // which of Next.js's runtimes register() runs in
  "next.config.ts": ["NODE_ENV"], // `next dev` or a build: Next.js sets it
};

function productFiles(): string[] {
  const inDirs = PRODUCT_DIRS.flatMap((dir) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && /\.(tsx?|cjs|mjs|js)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name))),
  );
  return [...inDirs, ...PRODUCT_ROOT_FILES].filter((file) => !file.startsWith("lib/config/"));
}

/** `process.env.X` read (not assigned), `process.env[…]`, or process.env kept under another name. */
function environmentReads(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const named = [...text.matchAll(/process\.env\.([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*\??=(?!=))/g)].map((match) => match[1]!);
  const indexed = [...text.matchAll(/process\.env\[/g)].map(() => "[…]");
  const aliased = [...text.matchAll(/=\s*process\.env\s*;/g)].map(() => "= process.env");
  return [...named, ...indexed, ...aliased].filter((name) => !(ALLOWED[file] ?? []).includes(name));
}

describe("environment variables", () => {
  it("are read only through lib/config in product code", () => {
    const files = productFiles();
    expect(files.length).toBeGreaterThan(100);
    const reads = files.flatMap((file) => environmentReads(file).map((name) => `${file}: process.env.${name}`));
    expect(reads).toEqual([]);
  });

  it("are found by this test when read directly", () => {
    expect(ALLOWED["next.config.ts"]).toEqual(["NODE_ENV"]);
    expect(environmentReads("next.config.ts")).toEqual([]);
    expect(readFileSync(join(ROOT, "next.config.ts"), "utf8")).toMatch(/process\.env\.NODE_ENV/);
  });
});
