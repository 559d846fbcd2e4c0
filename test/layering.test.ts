// The layers' direction (ARCHITECTURE.md, "Who owns what"): db/ and lib/ are the
// domain, and nothing in them imports what stands on them (the jobs, the routes and pages, the components, the
// benches, the tests' helpers); and no product code imports a package only installed for development (a
// production install omits them).
// Test helpers live under test/. Tests themselves may import anything.
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

const DEV_ONLY_PACKAGES = Object.keys(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).devDependencies as Record<string, string>);

/** The packages a file imports at run time (`import type` is erased, so it does not count). */
function runtimePackages(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/(?:^|\n)\s*import\s+(?!type\s)[^"]*?from\s+"([^"./@][^"]*|@[^"/]+\/[^"/]+)[^"]*"|import\("([^"./][^"]*)"\)/g)]
    .map((match) => (match[1] ?? match[2])!)
    .filter((specifier) => !specifier.startsWith("@/") && !specifier.startsWith("node:"))
    .map((specifier) => (specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!));
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

  it("outside lib/delivery/engine, jobs/ and lib/ reach the delivery engine through its front door (engine/index.ts)", () => {
    const files = [...sourceFiles("lib"), ...sourceFiles("jobs")].filter((file) => !file.startsWith("lib/delivery/engine/"));
    const throughTheDoor = files.filter((file) => /["']@\/lib\/delivery\/engine["']/.test(readFileSync(join(ROOT, file), "utf8")));
    expect(throughTheDoor.length).toBeGreaterThan(1); // the reading finds the engine's users at all
    const inside = files.filter((file) => /["'](@\/lib\/delivery|\.\.?(\/\.\.)*)\/engine\/[^"']+["']/.test(readFileSync(join(ROOT, file), "utf8")));
    expect(inside).toEqual([]);
  });

  const PRODUCT_DIRS = ["lib", "db", "jobs", "app", "components"];
  it.each(PRODUCT_DIRS)("nothing the product runs from %s/ imports a development-only package", (dir) => {
    const files = sourceFiles(dir);
    expect(DEV_ONLY_PACKAGES).toContain("vitest");
    expect(files.length).toBeGreaterThan(0);
    // The reading finds imports at all (jobs/ has no package of its own: its tasks run lib/'s verbs).
    expect(PRODUCT_DIRS.flatMap(sourceFiles).flatMap(runtimePackages).length).toBeGreaterThan(0);
    const devOnly = files.flatMap((file) =>
      runtimePackages(file).filter((name) => DEV_ONLY_PACKAGES.includes(name)).map((name) => `${file} -> ${name}`));
    expect(devOnly).toEqual([]);
  });
});
