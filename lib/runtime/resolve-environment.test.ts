// What `npm start` hands its web server and worker about the database: with DATABASE_URL set, not the embedded
// one, so private destinations keep their safe default there (issue #47 point 2; the embedded branch starts a
// PostgreSQL: start.int.test.ts runs it).
import { afterEach, describe, expect, it } from "vitest";
import { configFrom } from "@/lib/config/config";
import { resolveEnvironment } from "./resolve-environment";

const saved = { DATABASE_URL: process.env.DATABASE_URL, AUTH_SECRET: process.env.AUTH_SECRET, INBOX_EMBEDDED_DATABASE: process.env.INBOX_EMBEDDED_DATABASE };
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("resolveEnvironment with DATABASE_URL set", () => {
  it("marks the children's environment as not on the embedded database, even when the parent's said so", async () => {
    process.env.DATABASE_URL = "postgres://user@127.0.0.1:5432/somewhere";
    process.env.AUTH_SECRET = "a-test-secret";
    process.env.INBOX_EMBEDDED_DATABASE = "true"; // left over from an outer `npm start`
    const resolved = await resolveEnvironment({ allowEmbeddedDatabase: true, log: () => {} });
    expect(resolved.embedded).toBeUndefined();
    expect(resolved.env.INBOX_EMBEDDED_DATABASE).toBe("false");
    expect(configFrom(resolved.env).INBOX_ALLOW_PRIVATE_DESTINATIONS).toBe(false);
  });
});
