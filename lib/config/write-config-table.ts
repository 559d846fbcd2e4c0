// `npm run docs:config`: writes the configuration table of README.md from lib/config/schema.ts.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { withConfigTable } from "./config-table";

const readmePath = path.resolve("README.md");
try {
  const readme = readFileSync(readmePath, "utf8");
  const updated = withConfigTable(readme);
  if (updated !== readme) writeFileSync(readmePath, updated);
  process.stdout.write(updated === readme ? "README.md's configuration table is up to date\n" : "README.md's configuration table written\n");
} catch (error) {
  process.stderr.write(`[docs:config] ${(error as Error).message}\n`);
  process.exit(1);
}
