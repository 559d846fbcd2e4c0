// `npm run build:cli`: bundles lib/cli/standalone.ts and what it imports into dist/inbox.mjs, one file that runs
// with Node alone (no checkout, no npm install). esbuild is the bundler tsx already runs on.
import { chmodSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const STANDALONE_CLI = path.join(root, "dist", "inbox.mjs");

export async function buildStandaloneCli(outfile = STANDALONE_CLI): Promise<string> {
  await build({
    entryPoints: [path.join(root, "lib/cli/standalone.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
    logLevel: "warning",
  });
  chmodSync(outfile, 0o755); // ./inbox.mjs listen …
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildStandaloneCli().then((file) => process.stdout.write(`${path.relative(process.cwd(), file)}\n`));
}
