// Builds the Next.js app when its sources are newer than the last build (npm start, npm test).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { config, type Config } from "@/lib/config/config";
import { isProcessAlive } from "./is-process-alive";
import { logger } from "@/lib/logging/logger";

/** What the build is made from. Tests (*.test.ts) are not, so editing one does not force a rebuild. */
const SOURCE_DIRS = ["app", "components", "lib", "db", "public"];
const SOURCE_FILES = [
  "next.config.ts",
  "next.config.mjs",
  "next.config.js",
  "package.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "postcss.config.mjs",
  "middleware.ts",
  "proxy.ts",
  "instrumentation.ts",
];

function newestMtime(target: string): number {
  let stat;
  try {
    stat = statSync(target);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return /\.test\.tsx?$/.test(target) ? 0 : stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** True when `.next/BUILD_ID` is missing or older than any source file. */
export function isNextBuildStale(root: string = process.cwd()): boolean {
  const buildId = path.join(root, ".next", "BUILD_ID");
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  const sources = [...SOURCE_DIRS, ...SOURCE_FILES].map((entry) => newestMtime(path.join(root, entry)));
  return Math.max(...sources) > built;
}

export const nextBin = (root: string) => path.join(root, "node_modules", "next", "dist", "bin", "next");

/**
 * Node's arguments for the production web server. A larger young generation: every ingest request
 * keeps its objects alive until its group commit answers, so with V8's default 16 MB semi-space many
 * survived scavenges and were copied or promoted (~10 % of the server's time was GC). In one
 * bench/ingest A/B run: 16 MB → 32 MB ingest ~10 % faster; 32 → 64 MB ~8 % more (Next.js CPU per
 * ingest request 850 → 800 µs); 128 MB no faster for ingest.
 */
export function nextStartArgs(root: string, port: number | string, settings: Config = config()): string[] {
  // How long the web server keeps an idle connection open (WEB_KEEP_ALIVE_TIMEOUT_MS; lib/config/schema.ts says why 65 s).
  const keepAliveMs = settings.WEB_KEEP_ALIVE_TIMEOUT_MS;
  // The peer hook appends the socket peer to x-forwarded-for, which Next does not (lib/http/client-address.ts).
  // The close hook ends connections answering nothing once the server stops, so the long keep-alive never delays a stop.
  return ["--max-semi-space-size=64", "--require", path.join(root, "lib/http/peer-address-hook.cjs"),
    "--require", path.join(root, "lib/http/close-on-shutdown-hook.cjs"), nextBin(root), "start", "-p", String(port),
    "--keepAliveTimeout", String(keepAliveMs)];
}

export interface BuildOptions {
  root?: string;
  env?: NodeJS.ProcessEnv;
  /** Receives the build process, so a supervisor can stop it on a signal. */
  onChild?: (child: ChildProcess) => void;
}

/** Runs `next build` (output inherited); rejects when it fails. */
export function buildNext({ root = process.cwd(), env = process.env, onChild }: BuildOptions = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [nextBin(root), "build"], {
      cwd: root,
      env: { ...env, NEXT_TELEMETRY_DISABLED: "1" },
      stdio: "inherit",
    });
    onChild?.(child);
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`next build failed (${signal ?? `exit code ${code}`})`)),
    );
  });
}


/** One build at a time per checkout: two `next build`s writing one .next destroy each other. */
async function withBuildLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(root, ".next-build.lock");
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: "wx" });
      break;
    } catch {
      const holder = Number(readFileSync(lock, "utf8") || 0);
      if (holder && !isProcessAlive(holder)) rmSync(lock, { force: true });
      else await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Builds when stale (or, with `onlyIfMissing`, when there is no build at all); logs as `[label]`. */
export async function ensureNextBuild(label: string, options: BuildOptions & { onlyIfMissing?: boolean } = {}) {
  const root = options.root ?? process.cwd();
  const needed = () => (options.onlyIfMissing ? !existsSync(path.join(root, ".next", "BUILD_ID")) : isNextBuildStale(root));
  if (!needed()) return;
  await withBuildLock(root, async () => {
    if (!needed()) return; // another process built it while we waited
    logger.info(`[${label}] building the Next.js app…`);
    const started = Date.now();
    await buildNext(options);
    logger.info(`[${label}] built in ${Math.round((Date.now() - started) / 1000)} s`);
  });
}
