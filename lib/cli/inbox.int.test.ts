import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { authenticateApiKey } from "@/lib/api-keys/authenticate-api-key";
import { useTestDatabase } from "@/test/db";

const database = useTestDatabase();

function inbox(...args: string[]) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "lib/cli/inbox.ts", ...args], {
    env: { ...process.env, DATABASE_URL: database.url() },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
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

  it("exits non-zero with a clear message on bad input", () => {
    const cases: Array<[string[], RegExp]> = [
      [["org:create", "--name", "X", "--email", "x@example.test"], /Missing --password/],
      [["org:create", "--name", "X", "--email", "not-an-email", "--password", "a-long-cli-password"], /valid email/],
      [["org:create", "--name", "X", "--email", "weak@example.test", "--password", "short"], /at least 10/],
      [["apikey:create", "--org", "org_missing"], /No organization org_missing/],
      [["frobnicate"], /Unknown command frobnicate/],
      [["org:create", "--bogus", "1"], /bogus/],
    ];
    for (const [args, message] of cases) {
      const result = inbox(...args);
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
