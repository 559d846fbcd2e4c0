// A bad value stops every process as it starts, naming the variable and what it accepts: the worker,
// `npm start`, and the Next.js web server (instrumentation.ts), before any database is touched.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { startNextServer } from "@/test/next-server";

const BAD = { ORG_INGEST_RATE: "abc", PASSWORD_HASH_NICE: "30" };
const SAID = ['ORG_INGEST_RATE="abc": a number greater than 0 expected', 'PASSWORD_HASH_NICE="30": a whole number from 0 to 19 expected'];

/** Runs a script with tsx; resolves with its exit code and standard error. */
function run(script: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      env: { ...process.env, ...BAD, DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

describe("a bad configuration value stops start-up", () => {
  it.each(["jobs/worker.ts", "lib/runtime/start.ts"])("of %s, with every bad variable named", { timeout: 60_000 }, async (script) => {
    const { code, stderr } = await run(script);
    expect(code).toBe(1);
    for (const line of SAID) expect(stderr).toContain(line);
  });

  it("of the web server", { timeout: 120_000 }, async () => {
    await expect(startNextServer({ databaseUrl: "postgres://nobody@127.0.0.1:1/none", env: BAD })).rejects.toThrow("next start exited with 1");
  });
});
