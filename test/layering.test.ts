// The layers' direction (ARCHITECTURE.md, "The delivery state machine", first paragraph): db/ and lib/ are the domain, and nothing in them imports
// what stands on them (the jobs, the routes and pages, the components, the benches). A test helper that needs
// those lives under test/. Tests themselves may import anything.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const ABOVE_THE_DOMAIN = ["jobs", "app", "components", "bench", "e2e", "test"];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** The top folders a file's imports name ("@/x/..." or a relative path), outside its own. */
function importedTopFolders(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((match) => match[1]!);
  return specifiers.flatMap((specifier) => {
    if (specifier.startsWith("@/")) return [specifier.slice(2).split("/")[0]!];
    if (specifier.startsWith(".")) return [relative(ROOT, join(ROOT, file, "..", specifier)).split("/")[0]!];
    return [];
  });
}

describe("layering", () => {
  it.each(["lib", "db"])("nothing in %s/ imports jobs/, app/, components/, bench/, e2e/ or test/", (dir) => {
    const files = sourceFiles(dir);
    expect(files.length).toBeGreaterThan(dir === "lib" ? 100 : 5);
    const upward = files.flatMap((file) =>
      importedTopFolders(file).filter((top) => ABOVE_THE_DOMAIN.includes(top)).map((top) => `${file} -> ${top}/`));
    expect(upward).toEqual([]);
  });
});
