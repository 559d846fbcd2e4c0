import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

// A real process, as the worker and the web server are: its console guarded (routed into the logger),
// then printing what libraries print (an error with query fields, drizzle's message, a URL with a password), then dying.
const script = `
  import { exitSafelyOnUncaughtErrors, guardConsole } from "@/lib/logging/guard-console";
  guardConsole();
  exitSafelyOnUncaughtErrors("test");
  const withFields = Object.assign(new Error("duplicate key"), { code: "23505", query: "insert …", parameters: ["http://joe:hunter2@dest.test/"] });
  console.error("a library logs:", withFields);
  console.error(new Error('Failed query: select $1\\nparams: postgres://u:s3cret-pass@db.test/x'));
  console.log("connecting to https://admin:pa55word@db.test:5432/inbox");
  console.warn({ url: "http://user:topsecret@example.test/" });
  setTimeout(() => { throw Object.assign(new Error("boom"), { parameters: ["hash-4f9a2b"] }); }, 0);
`;

describe("a guarded process prints no attached fields and no URL credentials, even from code we do not write", () => {
  it("describes errors, redacts text and exits 1 on an uncaught error", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", cwd: process.cwd() });
    const output = result.stdout + result.stderr;
    for (const secret of ["hunter2", "s3cret-pass", "pa55word", "topsecret", "hash-4f9a2b", "insert …"]) expect(output).not.toContain(secret);
    expect(output).toContain("Error [23505]: duplicate key");
    // As the logger's JSON lines, console.error's at level error on stderr, console.log's at info on stdout.
    expect(JSON.parse(result.stderr.split("\n")[0]!)).toMatchObject({ level: "error", msg: expect.stringMatching(/^a library logs: Error \[23505\]: duplicate key/) });
    expect(JSON.parse(result.stdout.split("\n")[0]!)).toMatchObject({ level: "info", msg: "connecting to https://***@db.test:5432/inbox" });
    expect(output).toContain("https://***@db.test:5432/inbox");
    expect(output).toContain("[test] uncaught exception: Error: boom");
    expect(result.status).toBe(1);
  });
});
