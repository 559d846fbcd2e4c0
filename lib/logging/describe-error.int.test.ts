// Errors reach logs only through describeError: real PostgreSQL errors (postgres.js and drizzle's
// wrapper) whose parameters hold a URL with a password and a key hash must not show them.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, getDb, getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { asServiceUnavailable } from "@/lib/errors";
import { describeError, describeErrorBriefly, redactLogText, stripUrlCredentials } from "./describe-error";

const database = useTestDatabase();
const PASSWORD = "hunter2-Sup3rSecret";
const KEY_HASH = "c0ffee1234deadbeefkeyhash9876";
const SECRET = `http://admin:${PASSWORD}@10.0.0.1/hook ${KEY_HASH}`;

async function thrown(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected the work to fail");
}

function expectClean(text: string) {
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(KEY_HASH);
  expect(text).not.toContain("10.0.0.1");
}

describe("describeError keeps parameters, details and URL credentials out of the log", () => {
  it("of a postgres.js error whose parameter is a secret (the message quotes the value)", async () => {
    const error = await thrown(() => getSql()`select cast(${SECRET}::text as timestamptz)`);
    expect(String((error as { parameters: unknown[] }).parameters)).toContain(PASSWORD); // the object does carry it
    expect(JSON.stringify((error as Error).message)).toContain(PASSWORD); // and so does PostgreSQL's own message
    const text = describeError(error);
    expectClean(text);
    expect(text).toMatch(/^PostgresError \[22007\]: invalid input syntax for type timestamp with time zone \(value not logged\)/);
    expect(text).toMatch(/\n\s+at /); // the stack's frames stay
  });

  it("of drizzle's DrizzleQueryError, whose message holds the statement and its params", async () => {
    const error = await thrown(() => getDb().execute(sql`select ${SECRET}::int`));
    expect((error as Error).message).toContain(PASSWORD);
    const text = describeError(error);
    expectClean(text);
    expect(text).toMatch(/Failed query \(statement and parameters not logged\)/);
    expect(text).toMatch(/cause: PostgresError \[22P02\]: invalid input syntax for type integer \(value not logged\)/);
    expectClean(describeErrorBriefly(error));
    expect(describeErrorBriefly(error)).not.toContain("\n");
  });

  it("of a unique violation, whose detail repeats the row's value", async () => {
    const org = await createOrganizationFixture();
    const insert = () => getSql()`insert into organizations (id, name) values (${org.organizationId}, ${SECRET})`;
    const error = await thrown(insert);
    expect((error as { code: string }).code).toBe("23505");
    const text = describeError(error);
    expectClean(text);
    expect(text).not.toContain(org.organizationId); // detail: Key (id)=(org_…) already exists
    expect(text).toMatch(/duplicate key value violates unique constraint/);
  });

  it("of errors with credentials in their message, causes or plain text", () => {
    const error = new Error(`connect to postgres://inbox:${PASSWORD}@db.example.com:5432/inbox failed`, { cause: new TypeError(`bad URL https://u:${PASSWORD}@x.test/`) });
    expectClean(describeError(error));
    expect(describeError(error)).toContain("postgres://***@db.example.com:5432/inbox");
    expect(stripUrlCredentials(`see smtp://mailer:${PASSWORD}@smtp.test:587 and http://plain.test/a@b`)).toBe("see smtp://***@smtp.test:587 and http://plain.test/a@b");
    expectClean(describeError(new SyntaxError(`Unexpected token 'h', "${SECRET}" is not valid JSON`)));
    expectClean(redactLogText(`Failed task 12 (deliver) with error 'Failed query: select $1\nparams: ${SECRET}'`));
    expectClean(redactLogText(`Failed task 12 (deliver) with error 'invalid input syntax for type integer: "${SECRET}"'`));
    expect(redactLogText('invalid byte sequence for encoding "UTF8": 0x00 0xff')).toBe('invalid byte sequence for encoding "UTF8" (value not logged)');
    const token = "Ab3_-".repeat(8) + "xyz";
    expect(redactLogText(`GET http://inbox.test/invite/${token} failed`)).toBe("GET http://inbox.test/invite/(token not logged) failed");
    expect(redactLogText(`/confirm-alert-email/${token}?x`)).toBe("/confirm-alert-email/(token not logged)?x");
    expect(describeError("plain text")).toBe("plain text");
    expect(describeError({ query: SECRET })).toBe("a thrown object (not logged)");
  });
});

describe("asServiceUnavailable tells 'the database is out of reach' from a bad request", () => {
  const clients: postgres.Sql[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.end({ timeout: 1 })));
  });

  it("for a refused connection, a statement timeout and an administrator's termination, through drizzle's wrapper too", async () => {
    const closed = postgres("postgres://postgres@127.0.0.1:1/none", { max: 1, connect_timeout: 2 });
    clients.push(closed);
    expect(asServiceUnavailable(await thrown(() => closed`select 1`))).not.toBeNull();

    const timed = postgres(database.url(), { max: 1, onnotice: () => {}, connection: { statement_timeout: 100 } });
    clients.push(timed);
    const timeout = await thrown(() => timed`select pg_sleep(2)`);
    expect((timeout as { code: string }).code).toBe("57014");
    expect(asServiceUnavailable(timeout)?.status).toBe(503);

    const victim = postgres(database.url(), { max: 1, onnotice: () => {} });
    clients.push(victim);
    const [{ pid }] = await victim<{ pid: number }[]>`select pg_backend_pid() as pid`;
    const sleeping = thrown(() => victim`select pg_sleep(5)`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await getSql()`select pg_terminate_backend(${pid})`;
    const terminated = await sleeping;
    expect(["57P01", "CONNECTION_CLOSED"]).toContain((terminated as { code: string }).code);
    expect(asServiceUnavailable(terminated)).not.toBeNull();

  });

  it("for a statement the dashboard/API pool cuts off after DATABASE_STATEMENT_TIMEOUT_MS", async () => {
    await closeDb();
    process.env.DATABASE_STATEMENT_TIMEOUT_MS = "300";
    try {
      const started = Date.now();
      const wrapped = await thrown(() => getDb().execute(sql`select pg_sleep(3)`));
      expect(Date.now() - started).toBeLessThan(2500);
      expect(asServiceUnavailable(wrapped)?.status).toBe(503);
      expect(asServiceUnavailable(await thrown(() => getSql()`select pg_sleep(3)`))).not.toBeNull();
      expect(await getSql()`select 1 as ok`).toEqual([{ ok: 1 }]); // short statements still run
    } finally {
      delete process.env.DATABASE_STATEMENT_TIMEOUT_MS;
      await closeDb();
    }
  });

  it("but not for a request's own bad data or a bug", async () => {
    expect(asServiceUnavailable(await thrown(() => getSql()`select ${"x"}::int`))).toBeNull();
    expect(asServiceUnavailable(await thrown(() => getDb().execute(sql`select 1 from no_such_table`)))).toBeNull();
    expect(asServiceUnavailable(new TypeError("x is undefined"))).toBeNull();
  });
});
