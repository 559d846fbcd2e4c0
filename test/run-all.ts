// `npm test`: the vitest files that need no built app while `next build` runs, then those that need it; then the
// fault suites (test/faults, each on its own PostgreSQL) beside Playwright; the solo files alone; then one line of
// totals: `N passed, N failed[, N skipped]`. Arguments after `npm test --` go to vitest and skip Playwright.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { onTerminationSignal } from "@/lib/runtime/child-processes";
import type { EmbeddedServer } from "@/lib/runtime/embedded-postgres";
import { ensureNextBuild } from "@/lib/runtime/next-build";

interface Totals {
  passed: number;
  failed: number;
  skipped: number;
}

const vitestArgs = process.argv.slice(2);
// TEST_REPORTS_DIR keeps every suite's JSON report and log there (per-file and per-test durations).
const keptReports = process.env.TEST_REPORTS_DIR;
const tmp = keptReports ? path.resolve(keptReports) : mkdtempSync(path.join(os.tmpdir(), "inbox-test-run-"));
if (keptReports) mkdirSync(tmp, { recursive: true });
const totals: Totals = { passed: 0, failed: 0, skipped: 0 };
/** Each failure in one line, printed again just above the totals so the tail of a CI log names them. */
const failures: string[] = [];
const running = new Set<ChildProcess>();
let embedded: EmbeddedServer | undefined;

/** Runs a command to the end; its output goes to ours, or to `logFile` (a suite running beside another). */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, logFile?: string): Promise<number> {
  return new Promise((resolve) => {
    const log = logFile ? openSync(logFile, "w") : undefined;
    const child = spawn(command, args, { env, stdio: log === undefined ? "inherit" : ["ignore", log, log] });
    running.add(child);
    const done = (code: number) => {
      running.delete(child);
      if (log !== undefined) closeSync(log);
      resolve(code);
    };
    child.on("error", () => done(1));
    child.on("exit", (code) => done(code ?? 1));
  });
}

function readJson(file: string): any {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

function firstLine(text: string): string {
  return text.split("\n").find((line) => line.trim())?.trim().slice(0, 300) ?? "";
}

/**
 * A failed vitest test's first line. Vitest's JSON report keeps only the stack of a timeout, whose first line is
 * its placeholder ("Error: STACK_TRACE_ERROR"), not "Test timed out": say so, with how long the test took.
 */
function vitestFailure(test: { failureMessages?: string[]; duration?: number }): string {
  const line = firstLine((test.failureMessages ?? []).join("\n"));
  if (line !== "Error: STACK_TRACE_ERROR") return line;
  return `timed out (the test's or a hook's timeout) after ${Math.round((test.duration ?? 0) / 1000)} s`;
}

/** A suite that exits non-zero without reporting a failed test counts as one failure. */
function suiteCrashed(name: string, why: string) {
  console.error(`[test] ${name} crashed: ${why}`);
  failures.push(`${name} crashed: ${firstLine(why)}`);
  totals.failed += 1;
}

/**
 * Test files named `*.solo.int.test.ts` assert a latency figure under a load they make themselves, so
 * a full run gives them the machine alone: after the other files, one at a time.
 */
const SOLO = ".solo.int.test.ts";

async function runVitest(env: NodeJS.ProcessEnv, args: string[], name: string, { besideAnother = false } = {}) {
  const started = Date.now();
  const report = path.join(tmp, `${name}.json`);
  const logFile = besideAnother ? path.join(tmp, `${name}.log`) : undefined;
  const failedBefore = totals.failed;
  const code = await run(
    "npx",
    ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${report}`, ...args],
    env,
    logFile,
  );
  if (logFile) process.stdout.write(`[test] ${name}'s output:\n${readFileSync(logFile, "utf8")}`);
  const json = readJson(report);
  if (!json) return suiteCrashed(name, `exit code ${code}, no report`);
  totals.passed += json.numPassedTests;
  totals.failed += json.numFailedTests;
  totals.skipped += json.numPendingTests + json.numTodoTests;
  // Files that failed without a failing test (import errors, hook failures) count once each.
  for (const file of json.testResults ?? []) {
    const failed = (file.assertionResults ?? []).filter((t: { status: string }) => t.status === "failed");
    for (const test of failed) {
      failures.push(`${name}: ${path.relative(process.cwd(), file.name)} › ${test.fullName}: ${vitestFailure(test)}`);
    }
    const failedTests = failed.length;
    if (file.status === "failed" && failedTests === 0) suiteCrashed(name, `${file.name}: ${file.message ?? "failed"}`);
  }
  if (code !== 0 && totals.failed === failedBefore) suiteCrashed(name, `exit code ${code}`);
  console.log(`[test] ${name}: ${Math.round((Date.now() - started) / 1000)} s; slowest files: ${slowestFiles(json.testResults ?? [])}`);
}

/** The five files that took longest, for whoever next keeps CI within its minutes. */
function slowestFiles(files: { name: string; startTime?: number; endTime?: number }[]): string {
  return files
    .map((file) => ({ file: path.relative(process.cwd(), file.name), seconds: ((file.endTime ?? 0) - (file.startTime ?? 0)) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 5)
    .map(({ file, seconds }) => `${file} ${seconds.toFixed(0)} s`)
    .join(", ");
}

/**
 * The vitest files of the default suite but the solo ones, split by whether they need the built app: they start
 * the Next.js server (test/next-server.ts, or through test/api-fetch.ts), build, or run `npm start`. A file missed
 * there still works, only later: ensureNextBuild waits for the build under its lock. Named one by one on vitest's
 * command line: its `--exclude` does not reach the projects of vitest.config.ts.
 */
function defaultSuiteFiles(): { needingBuild: string[]; withoutBuild: string[] } {
  const markers = ["@/test/next-server", "@/test/api-fetch", "ensureNextBuild", "lib/runtime/start"];
  const needingBuild: string[] = [];
  const withoutBuild: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && !entry.name.startsWith(".")) visit(file);
      } else if (/\.test\.ts$/.test(entry.name) && !entry.name.endsWith(".fault.test.ts") && !entry.name.endsWith(SOLO)) {
        const source = readFileSync(file, "utf8");
        (markers.some((marker) => source.includes(marker)) ? needingBuild : withoutBuild).push(file);
      }
    }
  };
  for (const dir of ["lib", "jobs", "db", "test", "app", "components"]) if (existsSync(dir)) visit(dir);
  return { needingBuild: needingBuild.sort(), withoutBuild: withoutBuild.sort() };
}

/** Like vitest, Playwright gets the server's admin URL as DATABASE_URL and makes its own database (e2e/serve.ts). */
async function runPlaywright(env: NodeJS.ProcessEnv) {
  const started = Date.now();
  const report = path.join(tmp, "playwright.json");
  const logFile = path.join(tmp, "playwright.log");
  const code = await run("npx", ["playwright", "test", "--reporter=list,json"], { ...env, PLAYWRIGHT_JSON_OUTPUT_NAME: report }, logFile);
  process.stdout.write(`[test] playwright's output:\n${readFileSync(logFile, "utf8")}`);
  console.log(`[test] playwright: ${Math.round((Date.now() - started) / 1000)} s`);
  const json = readJson(report);
  if (!json?.stats) return suiteCrashed("playwright", `exit code ${code}, no report`);
  const { expected = 0, unexpected = 0, flaky = 0, skipped = 0 } = json.stats;
  totals.passed += expected + flaky;
  totals.failed += unexpected;
  totals.skipped += skipped;
  collectPlaywrightFailures(json.suites ?? [], []);
  if (code !== 0 && unexpected === 0) suiteCrashed("playwright", `exit code ${code}: ${JSON.stringify(json.errors ?? [])}`);
}

function collectPlaywrightFailures(suites: any[], titles: string[]) {
  for (const suite of suites) {
    const here = suite.title ? [...titles, suite.title] : titles;
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== "unexpected") continue;
        const error = (test.results ?? []).map((r: any) => r.error?.message).find(Boolean) ?? "";
        failures.push(`playwright: ${[...here, spec.title].join(" › ")}: ${firstLine(String(error))}`);
      }
    }
    collectPlaywrightFailures(suite.suites ?? [], here);
  }
}

async function cleanUp() {
  await embedded?.stop().catch(() => {});
  if (!keptReports) rmSync(tmp, { recursive: true, force: true });
}

async function main(): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  if (!env.DATABASE_URL) {
    const { startEmbeddedPostgres } = await import("@/lib/runtime/embedded-postgres");
    embedded = await startEmbeddedPostgres(path.resolve(".data/test-pg"), Number(env.TEST_PG_PORT ?? 54330));
    env.DATABASE_URL = embedded.adminUrl;
  }
  onTerminationSignal(async (signal) => {
    for (const child of running) child.kill(signal);
    await cleanUp();
    process.exit(130);
  });

  if (vitestArgs.length > 0) {
    // A filtered run skips the up-front build: lib/runtime/start.int.test.ts builds when it needs to.
    await runVitest(env, vitestArgs, "vitest");
  } else {
    // `next build` keeps about one of the two cores busy (CI: 127 s, 75 s of CPU), so the test files that do not
    // need the built app run meanwhile, their output kept apart. Vitest (three workers) and Playwright (two browsers)
    // each keep both cores busy: at once, beside the fault suites, the machine ran at load ~20 and tests whose work
    // takes seconds passed their timeouts in every such run (2026-12-07: 1-4 failures a run, all of them load). So
    // vitest runs alone, then Playwright beside the fault suites (`*.fault.test.ts`: each starts its own PostgreSQL
    // and `npm start` and breaks something: kills, outages; they mostly wait).
    const files = defaultSuiteFiles();
    const withoutBuild = runVitest(env, files.withoutBuild, "vitest", { besideAnother: true });
    let built = true;
    try {
      await ensureNextBuild("test", { env, onChild: (child) => running.add(child) });
    } catch (error) {
      built = false;
      suiteCrashed("next build", String(error));
    }
    await withoutBuild;
    await runVitest(env, files.needingBuild, "vitest-built");
    const playwright = existsSync("playwright.config.ts");
    if (playwright && !built) console.error("[test] Playwright skipped: the Next.js build failed");
    await Promise.all([
      runVitest(env, ["--config", "test/faults/vitest.config.ts"], "faults", { besideAnother: true }),
      playwright && built ? runPlaywright(env) : Promise.resolve(),
    ]);
    await runVitest(env, ["--no-file-parallelism", SOLO], "vitest-solo");
  }
  await cleanUp();
  if (failures.length > 0) console.log(`[test] failed:\n${failures.map((f) => `  ✗ ${f}`).join("\n")}`);
  console.log(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ""}`);
  return totals.failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (error) => {
    console.error(`[test] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await cleanUp();
    console.log(`${totals.passed} passed, ${totals.failed + 1} failed${totals.skipped ? `, ${totals.skipped} skipped` : ""}`);
    process.exit(1);
  },
);
