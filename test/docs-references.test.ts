// README.md, ARCHITECTURE.md and docs/*.md name files, indexes, tables, environment variables and npm
// scripts: this fails when one of them does not exist, so the manual cannot drift from the code unseen.
// docs/api.md is left out: it is the contract, naming what the code must do rather than what it has.
//
// What counts as a name:
// - a file path: a token starting with a top folder of the repository and a slash (anywhere: backticks,
//   code blocks, links, prose), or a bare file name ending in .ts/.tsx/.sql/.md/.cjs/.mjs; a template
//   (`lib/signatures/<provider>.ts`) needs only its folder to exist;
// - an npm script: `npm run X`, `npm test`, `npm start`;
// - an environment variable: an UPPER_SNAKE word (one underscore at least; `*` as a wildcard) inside
//   backticks or a code block;
// - an index: a backticked token ending in _idx, _index, _key, _pkey, _pk or _unique, or one the text calls
//   an index ("index `x`", "`x` index"). README.md and ARCHITECTURE.md describe the schema as it is, so
//   theirs must exist now; the other docs (upgrade notes) may name indexes that have since been dropped;
// - a table: a backticked token the text calls a table or a view ("table `x`", "`x` table", "`x` primary key").
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ONLINE_INDEXES } from "@/db/online-indexes";

const ROOT = join(import.meta.dirname, "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

/** Folders git ignores (`.data/`, `node_modules/`, …): what lives there is not part of the repository. */
const IGNORED = new Set([".git", ...read(".gitignore").split("\n").filter((line) => /^[^#*!][^*]*\/$/.test(line)).map((line) => line.slice(0, -1))]);
const TOP_FOLDERS = readdirSync(ROOT, { withFileTypes: true }).filter((e) => e.isDirectory() && !IGNORED.has(e.name)).map((e) => e.name);

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && !relative(ROOT, entry.parentPath).split("/").some((part) => IGNORED.has(part)))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}
const REPO_FILES = [...readdirSync(ROOT).filter((name) => statSync(join(ROOT, name)).isFile()), ...TOP_FOLDERS.flatMap(filesUnder)];
const REPO_BASENAMES = new Set(REPO_FILES.map((file) => basename(file)));
const exists = (path: string) => {
  try {
    statSync(join(ROOT, path));
    return true;
  } catch {
    return false;
  }
};

const SCRIPTS = new Set(Object.keys(JSON.parse(read("package.json")).scripts as Record<string, string>));

// Environment variables the code reads. The product's code: what it reads from the environment
// (`env.X`, `env["X"]`), or names in a string or as an object key (a settings schema). The benches' and
// the tests' own knobs (docs/performance.md, README's set-up) only where read from `process.env`.
const sourceFiles = (dirs: string[]) => dirs.flatMap(filesUnder).filter((f) => /\.(tsx?|cjs|mjs)$/.test(f) && !/\.test\.tsx?$/.test(f));
const PRODUCT_CODE = [...sourceFiles(["app", "components", "db", "jobs", "lib"]), ...["proxy.ts", "instrumentation.ts", "next.config.ts", "drizzle.config.ts"].filter(exists)];
const UPPER = "[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+";
const READ_BY_PRODUCT = new RegExp(`env(?:\\?\\.|\\.)(${UPPER})\\b|env\\[["'\`](${UPPER})["'\`]\\]|["'\`](${UPPER})["'\`]|^\\s*(${UPPER})\\??:`, "gm");
const READ_FROM_PROCESS_ENV = new RegExp(`process\\.env(?:\\.|\\[["'\`])(${UPPER})\\b|\\benv\\(\\s*["'\`](${UPPER})["'\`]`, "g");
const namesIn = (files: string[], pattern: RegExp) =>
  files.flatMap((file) => [...read(file).matchAll(pattern)].map((match) => match.slice(1).find(Boolean)!));
/** Named in the docs though no code reads them, each with the reason it is documented anyway. */
const DOCUMENTED_WITHOUT_A_READER: Record<string, string> = {};
const ENVIRONMENT_VARIABLES = new Set([
  ...namesIn(PRODUCT_CODE, READ_BY_PRODUCT),
  ...namesIn([...sourceFiles(["bench", "test"]), ...filesUnder("test").filter((f) => f.endsWith(".test.ts"))], READ_FROM_PROCESS_ENV),
  ...Object.keys(DOCUMENTED_WITHOUT_A_READER),
]);
/** UPPER_SNAKE constants the code declares (`ONLINE_INDEXES`, `PARKED_POSITION`): names too, not variables. */
const CONSTANTS = new Set(namesIn([...PRODUCT_CODE, ...sourceFiles(["bench"])], new RegExp(`\\b(?:const|let|function|class|enum)\\s+(${UPPER})\\b`, "g")));

// Tables and indexes, from db/schema/*.ts, db/migrations/*.sql (in order, so that a dropped index is gone)
// and db/online-indexes.ts.
const MIGRATIONS = filesUnder("db/migrations").filter((f) => f.endsWith(".sql")).sort().map((f) => read(f).replace(/--[^\n]*/g, ""));
const SCHEMA = filesUnder("db/schema").filter((f) => f.endsWith(".ts")).map(read).join("\n");
const NAME = `"?([A-Za-z_][A-Za-z0-9_]*)"?`;
const TABLES = new Set([
  ...[...SCHEMA.matchAll(/pgTable\(\s*"([a-z_0-9]+)"/g)].map((m) => m[1]!),
  ...MIGRATIONS.flatMap((sql) => [...sql.matchAll(new RegExp(`create (?:table|view)(?: if not exists)? ${NAME}|rename to ${NAME}`, "gi"))].map((m) => (m[1] ?? m[2])!)),
]);
/** Indexes (and the constraints that make one) as the schema holds them now, and every one it ever held. */
const INDEXES_NOW = new Set<string>();
const INDEXES_EVER = new Set<string>();
const made = (name: string) => (INDEXES_NOW.add(name), INDEXES_EVER.add(name));
const dropped = (name: string) => (INDEXES_NOW.delete(name), INDEXES_EVER.add(name));
// A table's body is read by a lookahead, so that the constraints inside it are matched too.
// A renamed constraint (`rename constraint a to b`) is the old one dropped and the new one made.
const INDEX_STATEMENT = new RegExp(
  `rename constraint ${NAME} to ${NAME}|create (?:unique )?index (?:concurrently )?(?:if not exists )?${NAME}|constraint ${NAME}|create table ${NAME} \\((?=([^;]*?)\\);)` +
    `|drop (?:index|constraint) (?:concurrently )?(?:if exists )?((?:"?\\w+"?(?:,\\s*)?)+)`,
  "gi",
);
for (const sql of MIGRATIONS) {
  for (const [, renamedFrom, renamedTo, index, constraint, table, columns, drops] of sql.matchAll(INDEX_STATEMENT)) {
    if (renamedFrom) (dropped(renamedFrom), made(renamedTo!));
    if (index ?? constraint) made((index ?? constraint)!);
    if (table && /^\s*"?\w+"? [^\n]*primary key/im.test(columns!)) made(`${table}_pkey`);
    for (const name of drops?.split(",") ?? []) dropped(name.trim().replaceAll('"', ""));
  }
}
for (const index of ONLINE_INDEXES) {
  made(index.name);
  for (const replaced of index.replaces ?? []) dropped(replaced);
}
for (const [, name] of SCHEMA.matchAll(/(?:index|uniqueIndex)\(\s*"(\w+)"/g)) made(name!);

type Kind = "file" | "npm script" | "environment variable" | "index" | "table";

/** Every name `text` gives, by kind. */
function namesGiven(text: string): { kind: Kind; name: string }[] {
  const fenced = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  const prose = text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, "");
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  const names: { kind: Kind; name: string }[] = [];
  const give = (kind: Kind, name: string) => names.push({ kind, name });

  const path = new RegExp(`(?<![\\w./$-])((?:${TOP_FOLDERS.map((f) => f.replace(".", "\\.")).join("|")})/[^\\s\`'"|,;]*)`, "g");
  for (const [, found] of text.matchAll(path)) {
    let token = found!.replace(/[.:]+$/, "");
    while (token.endsWith(")") && token.split("(").length < token.split(")").length) token = token.slice(0, -1).replace(/[.:]+$/, "");
    give("file", token);
  }
  for (const [, file] of text.matchAll(/(?<![\w./*<-])([\w-]+(?:\.[\w-]+)*\.(?:tsx?|sql|md|cjs|mjs))(?![\w/])/g)) give("file", file!);
  for (const [, script] of text.matchAll(/\bnpm run ([\w:.-]+)/g)) give("npm script", script!);
  for (const [, script] of text.matchAll(/\bnpm (test|start)\b/g)) give("npm script", script!);
  for (const piece of [...spans, ...fenced]) {
    for (const [name] of piece.matchAll(/(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*(?:_(?:[A-Z0-9]+|\*))+(?![A-Za-z0-9_])/g)) give("environment variable", name);
  }
  for (const span of spans) if (/^[a-z][A-Za-z0-9_]*_(?:idx|index|key|pkey|pk|unique)$/.test(span)) give("index", span);
  for (const [, before, after] of prose.matchAll(/\bindex\s+`([a-z][A-Za-z0-9_]*)`|`([a-z][A-Za-z0-9_]*)`\s+index\b/g)) give("index", (before ?? after)!);
  for (const [, list] of prose.matchAll(/\b(?:tables?|views?)\s+((?:`[a-z_][a-z0-9_]*`(?:,\s*|\s+and\s+|\s+or\s+)?)+)/g)) {
    for (const [, name] of list!.matchAll(/`([a-z_][a-z0-9_]*)`/g)) give("table", name!);
  }
  for (const [, name] of prose.matchAll(/`([a-z_][a-z0-9_]*)`(?:'s?)?\s+(?:tables?|views?|primary\s+key)\b/g)) give("table", name!);
  return names;
}

/** What `text` names that does not exist; `indexes` is the set its index names are checked against. */
function unknownNames(text: string, indexes: Set<string>): string[] {
  const known = ({ kind, name }: { kind: Kind; name: string }): boolean => {
    switch (kind) {
      case "file": {
        const template = name.search(/[<>{}*…$]/);
        if (template >= 0) return exists(name.slice(0, name.lastIndexOf("/", template) + 1) || ".");
        return name.includes("/") ? exists(name.replace(/\/$/, "")) : REPO_BASENAMES.has(name);
      }
      case "npm script":
        return SCRIPTS.has(name);
      case "environment variable": {
        const pattern = new RegExp(`^${name.replaceAll("*", "[A-Z0-9_]+")}$`);
        return [...ENVIRONMENT_VARIABLES, ...CONSTANTS].some((known) => pattern.test(known));
      }
      case "index":
        return indexes.has(name);
      case "table":
        return TABLES.has(name);
    }
  };
  return [...new Set(namesGiven(text).filter((name) => !known(name)).map(({ kind, name }) => `${kind} ${name}`))];
}

const DOCS = ["README.md", "ARCHITECTURE.md", ...filesUnder("docs").filter((f) => f.endsWith(".md") && f !== "docs/api.md")];
const CURRENT_STATE_DOCS = new Set(["README.md", "ARCHITECTURE.md"]);

describe("the docs name only what exists", () => {
  it.each(DOCS)("%s", (doc) => {
    expect(unknownNames(read(doc), CURRENT_STATE_DOCS.has(doc) ? INDEXES_NOW : INDEXES_EVER)).toEqual([]);
  });

  it("finds a made-up name of every kind", () => {
    const madeUp = [
      "See `lib/delivery/engine/no-such-statement.ts` and no-such-helper.ts, run `npm run bench:no-such-bench`,",
      "set `INBOX_NO_SUCH_SETTING`, read by `deliveries_org_no_such_idx` from the table `no_such_deliveries`.",
    ].join("\n");
    expect(unknownNames(madeUp, INDEXES_NOW).sort()).toEqual([
      "environment variable INBOX_NO_SUCH_SETTING",
      "file lib/delivery/engine/no-such-statement.ts",
      "file no-such-helper.ts",
      "index deliveries_org_no_such_idx",
      "npm script bench:no-such-bench",
      "table no_such_deliveries",
    ]);
  });

  it("tells a dropped index from one that exists", () => {
    expect(INDEXES_EVER.has("deliveries_endpoint_delivered_idx") && !INDEXES_NOW.has("deliveries_endpoint_delivered_idx")).toBe(true);
    expect(INDEXES_NOW.has("deliveries_org_received_idx")).toBe(true);
  });
});
