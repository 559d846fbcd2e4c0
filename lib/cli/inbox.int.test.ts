import { execFile, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { authenticateApiKey } from "@/lib/api-keys/authenticate-api-key";
import { useTestDatabase } from "@/test/db";
import { freePort } from "@/test/next-server";

const database = useTestDatabase();

function inbox(...args: string[]) {
  return inboxWith({ DATABASE_URL: database.url() }, ...args);
}

function inboxWith(env: Record<string, string>, ...args: string[]) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "lib/cli/inbox.ts", ...args], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** inbox(), without holding the test's thread: several commands at once. */
function inboxAsync(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", "lib/cli/inbox.ts", ...args], { env: { ...process.env, DATABASE_URL: database.url() }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("the inbox CLI", () => {
  it("creates an organization with an owner and a working API key, as one JSON line", async () => {
    const result = inbox("org:create", "--name", "Acme", "--email", "cli@example.test", "--password", "a-long-cli-password");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]!);
    expect(Object.keys(created).sort()).toEqual(["apiKey", "organizationId", "userId"]);
    expect(await authenticateApiKey(created.apiKey)).toMatchObject({ organizationId: created.organizationId });

    const key = inbox("apikey:create", "--org", created.organizationId);
    expect(key.code).toBe(0);
    const { apiKey } = JSON.parse(key.stdout);
    expect(apiKey).not.toBe(created.apiKey);
    expect(await authenticateApiKey(apiKey)).toMatchObject({ organizationId: created.organizationId });
  });

  it("lists every command with --help, without touching a database", () => {
    // A database URL nothing listens on: help must not need one.
    const result = inboxWith({ DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }, "--help");
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    for (const command of ["org:create", "apikey:create", "--help"]) expect(result.stdout).toContain(`npm run inbox -- ${command}`);
  });

  // Six processes: side by side, since one run of them after another took ~30 s on a loaded machine.
  it("exits non-zero with a clear message on bad input", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["org:create", "--name", "X", "--email", "x@example.test"], /Missing --password/],
      [["org:create", "--name", "X", "--email", "not-an-email", "--password", "a-long-cli-password"], /valid email/],
      [["org:create", "--name", "X", "--email", "weak@example.test", "--password", "short"], /at least 10/],
      [["apikey:create", "--org", "org_missing"], /No organization org_missing/],
      [["frobnicate"], /Unknown command frobnicate/],
      [["org:create", "--bogus", "1"], /bogus/],
    ];
    const results = await Promise.all(cases.map(([args]) => inboxAsync(...args)));
    for (const [index, [args, message]] of cases.entries()) {
      const result = results[index]!;
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(message);
    }
  });

  it("refuses an email that is taken", () => {
    expect(inbox("org:create", "--name", "A", "--email", "taken@example.test", "--password", "a-long-cli-password").code).toBe(0);
    const again = inbox("org:create", "--name", "B", "--email", "taken@example.test", "--password", "a-long-cli-password");
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
  });
});

describe("the inbox CLI without DATABASE_URL", () => {
  const listening = (port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => resolve(true)).on("error", () => resolve(false));
      socket.unref();
    });

  it("uses the embedded PostgreSQL that npm start uses, and leaves it stopped", { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "inbox-cli-"));
    chmodSync(dataDir, 0o755); // PostgreSQL runs as the postgres user when we are root
    // Neither DATABASE_URL nor AUTH_SECRET (vitest.config.ts sets one for the tests): `npm start`'s first run.
    const env = { DATABASE_URL: "", AUTH_SECRET: "", INBOX_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
    try {
      const created = inboxWith(env, "org:create", "--name", "Embedded", "--email", "embedded@example.test", "--password", "a-long-cli-password");
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout, created.stderr).toMatch(/^\{.*\}\n$/);
      const { organizationId } = JSON.parse(created.stdout);
      const key = inboxWith(env, "apikey:create", "--org", organizationId);
      expect(key.code, key.stderr).toBe(0);
      expect(key.stdout, key.stderr).toMatch(/inbox_sk_/);
      expect(JSON.parse(key.stdout).apiKey).toMatch(/^inbox_sk_/);
      const missing = inboxWith(env, "apikey:create", "--org", "org_missing");
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/No organization org_missing/);
      expect(existsSync(path.join(dataDir, "auth-secret"))).toBe(true);
      expect(await listening(Number(env.EMBEDDED_PG_PORT))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
