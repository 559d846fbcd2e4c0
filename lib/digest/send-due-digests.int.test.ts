// Issue #45 part 4: the daily digest goes out at the first check at or after its hour, once per organization
// and UTC day: not twice across two runs racing on separate connections (as two workers), nor after a restart
// the same day; the next day again. Checks are driven with `now` instead of waiting for the clock; the mails go
// through the send-mail job to a real SMTP server.
import { execFile } from "node:child_process";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, getDb, type Db } from "@/db";
import { createCtx } from "@/lib/context";
import { updateOrganization } from "@/lib/organizations/update-organization";
import { useTestDatabase } from "@/test/db";
import { addMember, runDueJobs } from "@/test/alert-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { startTestSmtpServer, type TestSmtpServer } from "@/test/smtp-server";
import { sendDigest } from "./send-digest";
import { sendDueDigests } from "./send-due-digests";

const database = useTestDatabase();
let smtp: TestSmtpServer;
const clients: postgres.Sql[] = [];

/** A connection of its own, as another worker process (or the same one after a restart) has. */
function anotherConnection(): Db {
  const client = postgres(database.url(), { max: 1, onnotice: () => undefined });
  clients.push(client);
  return createDb(client);
}

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  process.env.SMTP_URL = smtp.url;
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.end()));
  delete process.env.SMTP_URL;
  await smtp?.close();
});

const at = (iso: string) => new Date(iso);

async function organizationWithDigest(digest: { hourUtc: number; recipients?: string[] }, name = "Acme") {
  const organization = await createOrganizationFixture(name);
  await updateOrganization({ ctx: organization.ctx, input: { changes: { digest } } });
  return organization;
}

const digestMails = async (organizationId: string) =>
  getDb().execute<{ recipients: string[]; subject: string }>(sql`
    select recipients, subject from mails where organization_id = ${organizationId} and subject like '[Webhook Inbox] Daily digest%' order by created_at, id`);
const sentDays = async (organizationId: string) =>
  (await getDb().execute<{ day: string }>(sql`select day::text from digest_sends where organization_id = ${organizationId} order by day`)).map((row) => row.day);

describe("when the digest goes out", () => {
  it("not before its hour; at the first check at or after it, once; again not after a restart the same day; the next day again", async () => {
    const acme = await organizationWithDigest({ hourUtc: 8 });
    const sweep = async (iso: string, db: Db = getDb()) => sendDueDigests({ input: { now: at(iso) }, db });

    await sweep("2031-03-04T07:59:59Z");
    expect(await digestMails(acme.organizationId)).toHaveLength(0);
    await sweep("2031-03-04T08:00:30Z");
    expect(await digestMails(acme.organizationId)).toHaveLength(1);
    await sweep("2031-03-04T08:01:30Z");
    // A restart: a new process, its own connection, later the same day.
    await sweep("2031-03-04T23:59:59Z", anotherConnection());
    expect(await digestMails(acme.organizationId)).toHaveLength(1);
    // The next day: not before the hour, then once.
    await sweep("2031-03-05T07:30:00Z", anotherConnection());
    expect(await digestMails(acme.organizationId)).toHaveLength(1);
    await sweep("2031-03-05T09:10:00Z", anotherConnection());
    await sweep("2031-03-05T09:11:00Z");
    expect(await digestMails(acme.organizationId)).toHaveLength(2);
    expect(await sentDays(acme.organizationId)).toEqual(["2031-03-04", "2031-03-05"]);
  });

  it("goes out once when two runs race on separate connections, whether both saw it due or not", async () => {
    const acme = await organizationWithDigest({ hourUtc: 6 });
    // Both past the sweep's read: the day's row settles which one queues the mail.
    const ctxOn = (db: Db) => createCtx(acme.organizationId, { type: "system" }, db);
    const raced = await Promise.all([anotherConnection(), anotherConnection(), anotherConnection()].map((db) => sendDigest({ ctx: ctxOn(db), input: { now: at("2031-04-01T06:00:05Z") } })));
    expect(raced.filter(Boolean)).toHaveLength(1);
    expect(await digestMails(acme.organizationId)).toHaveLength(1);

    // Two whole sweeps, as two workers' cron ticks, the next day.
    await Promise.all([anotherConnection(), anotherConnection()].map((db) => sendDueDigests({ input: { now: at("2031-04-02T06:00:01Z") }, db })));
    expect(await digestMails(acme.organizationId)).toHaveLength(2);
    expect(await sentDays(acme.organizationId)).toEqual(["2031-04-01", "2031-04-02"]);
  });

  it("goes out once when two worker processes check at the same moment", { timeout: 60_000 }, async () => {
    const acme = await organizationWithDigest({ hourUtc: 5 });
    const check = () => new Promise<{ sent: number; failed: number }>((resolve, reject) => {
      execFile(process.execPath, ["--import", "tsx", "test/send-due-digests-once.ts", "2031-05-01T05:00:02Z"], { env: { ...process.env, DATABASE_URL: database.url() } },
        (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout.trim().split("\n").at(-1)!))));
    });
    const results = await Promise.all([check(), check()]);
    expect(results.map((result) => result.failed)).toEqual([0, 0]);
    expect(results.reduce((sum, result) => sum + result.sent, 0)).toBe(1);
    expect(await digestMails(acme.organizationId)).toHaveLength(1);
    expect(await sentDays(acme.organizationId)).toEqual(["2031-05-01"]);
  });

  it("choosing the current hour sends today's at the next check if none went out today; a later hour the same day sends nothing more", async () => {
    const acme = await organizationWithDigest({ hourUtc: 20 });
    await sendDueDigests({ input: { now: at("2031-05-06T15:20:00Z") } });
    expect(await digestMails(acme.organizationId)).toHaveLength(0);
    await updateOrganization({ ctx: acme.ctx, input: { changes: { digest: { hourUtc: 15 } } } });
    await sendDueDigests({ input: { now: at("2031-05-06T15:21:00Z") } });
    expect(await digestMails(acme.organizationId)).toHaveLength(1);
    // Moved to a later hour after today's went out: tomorrow's waits for that hour.
    await updateOrganization({ ctx: acme.ctx, input: { changes: { digest: { hourUtc: 18 } } } });
    await sendDueDigests({ input: { now: at("2031-05-06T18:00:00Z") } });
    await sendDueDigests({ input: { now: at("2031-05-07T17:59:00Z") } });
    expect(await digestMails(acme.organizationId)).toHaveLength(1);
    await sendDueDigests({ input: { now: at("2031-05-07T18:00:00Z") } });
    expect(await digestMails(acme.organizationId)).toHaveLength(2);
  });

  it("turned off, or the organization deleted, nothing goes out", async () => {
    const off = await organizationWithDigest({ hourUtc: 1 });
    await updateOrganization({ ctx: off.ctx, input: { changes: { digest: null } } });
    const deleted = await organizationWithDigest({ hourUtc: 1 });
    await getDb().execute(sql`update organizations set deleted_at = now() where id = ${deleted.organizationId}`);
    await sendDueDigests({ input: { now: at("2031-06-01T12:00:00Z") } });
    expect(await digestMails(off.organizationId)).toHaveLength(0);
    expect(await digestMails(deleted.organizationId)).toHaveLength(0);
    // A run that finds it turned off after its read queues nothing either.
    expect(await sendDigest({ ctx: off.ctx, input: { now: at("2031-06-01T12:00:00Z") } })).toBe(false);
  });
});

describe("who gets it", () => {
  it("the owners by default, the chosen members otherwise (one removed since is left out), through SMTP with text and HTML", async () => {
    const acme = await organizationWithDigest({ hourUtc: 0 }, "Owners & Co");
    const globex = await createOrganizationFixture("Chosen");
    const [ops, gone] = [await addMember(globex.organizationId), await addMember(globex.organizationId)];
    await updateOrganization({ ctx: globex.ctx, input: { changes: { digest: { hourUtc: 0, recipients: [ops, gone] } } } });
    await getDb().execute(sql`delete from memberships where organization_id = ${globex.organizationId} and user_id = (select id from users where email = ${gone})`);

    await sendDueDigests({ input: { now: at("2031-07-01T00:00:00Z") } });
    await runDueJobs();
    const to = (address: string) => smtp.received.filter((mail) => mail.to.includes(address));
    const [owners] = to(acme.email);
    expect(owners).toMatchObject({ to: [acme.email], subject: "[Webhook Inbox] Daily digest: Owners & Co, 2031-07-01" });
    expect(owners!.text).toContain("This organization has no endpoint yet.");
    expect(owners!.html).toContain("Daily digest of Owners &amp; Co");
    const [chosen] = to(ops);
    expect(chosen!.to).toEqual([ops]);
    expect(to(gone)).toEqual([]);
    expect(to(globex.email)).toEqual([]);
  });
});

describe("the worker's send-daily-digest job", () => {
  it("queued as the cron queues it, sends today's digest and its mail in the same run, once", async () => {
    const acme = await organizationWithDigest({ hourUtc: 0 }, "By the worker");
    await getDb().execute(sql`select graphile_worker.add_job('send-daily-digest', '{}'::json)`);
    await runDueJobs();
    await getDb().execute(sql`select graphile_worker.add_job('send-daily-digest', '{}'::json)`);
    await runDueJobs();
    const today = new Date().toISOString().slice(0, 10);
    expect((await sentDays(acme.organizationId)).at(-1)).toBe(today);
    expect(smtp.received.filter((mail) => mail.to.includes(acme.email)).map((mail) => mail.subject)).toEqual([`[Webhook Inbox] Daily digest: By the worker, ${today}`]);
  });
});
