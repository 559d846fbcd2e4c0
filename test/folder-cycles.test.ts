// lib/'s folders depend on each other one way (ARCHITECTURE.md, "Who owns what"): when two folders import
// each other, one of them holds code that belongs to the other or to a folder both may import. A folder is
// the first folder under lib/ (lib/auth, lib/delivery…); lib/'s own files (context.ts, errors.ts…) are no
// folder. Product files only: tests may import anything.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");

/** Every product source file under `dir`, relative to `root`. */
function productFilesUnder(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(c|m)?[jt]sx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** The lib/ folder a path (from the root) lies in, or null for lib/'s own files and anything outside lib/. */
function libFolderOf(path: string): string | null {
  const parts = path.split("/");
  return parts[0] === "lib" && parts.length > 2 ? parts[1]! : null;
}

/** The lib/ folders a file imports (`@/lib/…` or a relative path; static, dynamic, `export … from`), its own aside. */
function importedLibFolders(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map((match) => match[1]!);
  const own = libFolderOf(file);
  return specifiers.flatMap((specifier) => {
    const target = specifier.startsWith("@/") ? specifier.slice(2) : specifier.startsWith(".") ? relative(root, join(root, file, "..", specifier)) : null;
    const folder = target === null ? null : libFolderOf(target);
    return folder !== null && folder !== own ? [folder] : [];
  });
}

/** Every pair of lib/ folders that import each other, as "a <-> b (a's files that import b; b's that import a)". */
function twoWayFolderPairs(root: string): { pairs: string[]; edges: number } {
  const importers = new Map<string, Set<string>>(); // "a b" -> files of a that import b
  for (const file of productFilesUnder(root, "lib")) {
    const own = libFolderOf(file);
    if (own === null) continue;
    for (const folder of importedLibFolders(root, file)) {
      const key = `${own} ${folder}`;
      importers.set(key, (importers.get(key) ?? new Set()).add(file));
    }
  }
  const pairs = [...importers.keys()].flatMap((key) => {
    const [a, b] = key.split(" ") as [string, string];
    const back = importers.get(`${b} ${a}`);
    if (!back || a > b) return [];
    return [`lib/${a} <-> lib/${b} (${[...importers.get(key)!].join(", ")}; ${[...back].join(", ")})`];
  });
  return { pairs, edges: importers.size };
}

describe("lib/ folders import each other one way only", () => {
  it("finds no two folders that import each other", () => {
    const { pairs, edges } = twoWayFolderPairs(ROOT);
    expect(edges).toBeGreaterThan(50); // the reading finds imports between folders at all
    expect(pairs, `two-way folder pairs:\n${pairs.join("\n")}`).toEqual([]);
  });
});
