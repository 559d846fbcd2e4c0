// Mail delivery through the product's path: a mail row and its send-mail job, run by graphile-worker with the
// worker's task list, against a real SMTP server on 127.0.0.1 (or none: the dev mailbox).
import { and, eq, sql } from "drizzle-orm";
import { run } from "graphile-worker";
import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/db";
import { incidents, mails } from "@/db/schema";
import { enqueue } from "@/lib/queue/enqueue";
import { taskList } from "@/jobs";
import { checkAlerts } from "@/lib/alerts/check-alerts";
import { alertingEndpointFixture, insertDelivery, later, minutes, runDueJobs } from "@/test/alert-fixtures";
import { quietGraphileLogger } from "@/lib/runtime/migrate";
import { useTestDatabase } from "@/test/db";
import { until } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { listMails } from "./list-mails";
import { queueMail } from "./queue-mail";
import { jobSpec } from "@/lib/queue/job-registry";
import { startTestSmtpServer, type TestSmtpServer } from "@/test/smtp-server";
import { captureLogs } from "@/test/captured-logs";

const database = useTestDatabase();
const servers: TestSmtpServer[] = [];

async function smtpServer(options: { refuseFirst?: number } = {}) {
  const server = await startTestSmtpServer(options);
  servers.push(server);
  process.env.SMTP_URL = server.url;
  return server;
}

afterEach(async () => {
  delete process.env.SMTP_URL;
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const mailRow = async (id: string) => (await getDb().select().from(mails).where(eq(mails.id, id)))[0]!;
const message = { subject: "Hello", text: "Plain words", html: "<p>Plain words</p>" };

describe("an SMTP server that refuses the first time still gets the alert, retried by the worker", () => {
  it("records the refusal on the incident and the mail, then delivers after graphile-worker's backoff", { timeout: 40_000 }, async () => {
    const smtp = await smtpServer({ refuseFirst: 1 });
    const { endpoint, alertEmail, organizationId } = await alertingEndpointFixture({ thresholdSeconds: 60 });
    const t0 = new Date();
    await insertDelivery({ organizationId, endpointId: endpoint.id, status: "pending", receivedAt: later(t0, -minutes(5)) });
    await checkAlerts({ input: { now: t0 } });

    const runner = await run({ connectionString: database.url(), taskList, logger: quietGraphileLogger, concurrency: 1, pollInterval: 100 });
    try {
      const failure = await until("the refusal to be recorded on the incident", async () => {
        const [incident] = await getDb().select().from(incidents).where(eq(incidents.endpointId, endpoint.id));
        return incident?.notifyError;
      });
      expect(failure).toContain("451");
      expect(smtp.refused()).toBe(1);
      await until("the retried mail to arrive", async () => smtp.received.length === 1);
    } finally {
      await runner.stop();
    }

    expect(smtp.received[0]!.to).toEqual([alertEmail]);
    const [incident] = await getDb().select().from(incidents).where(eq(incidents.endpointId, endpoint.id));
    expect(incident!.notifyError).toBeNull();
    const [row] = await getDb().select().from(mails).where(eq(mails.incidentId, incident!.id));
    expect(row).toMatchObject({ status: "sent", attempts: 2 });
    expect(row!.error).toContain("451");
  });
});

describe("a mail whose retries run out is marked failed, and the worker carries on", () => {
  it("keeps the mail with status failed and the SMTP error", async () => {
    await smtpServer({ refuseFirst: 1_000 });
    const { ctx } = await createOrganizationFixture();
    const { id } = await queueMail({ ctx, input: { to: ["someone@example.test"], ...message } });
    await getDb().execute(sql`update graphile_worker._private_jobs set max_attempts = 1 where payload->>'mailId' = ${id}`);
    await expect(runDueJobs()).resolves.toBeUndefined();
    expect(await mailRow(id)).toMatchObject({ status: "failed", attempts: 1 });
    expect((await mailRow(id)).error).toContain("Mailbox busy");
  });
});

describe("a mail is sent once even when its job runs twice", () => {
  it("skips a mail already sent", async () => {
    const smtp = await smtpServer();
    const { ctx, organizationId } = await createOrganizationFixture();
    const { id } = await queueMail({ ctx, input: { to: ["twice@example.test"], ...message } });
    await runDueJobs();
    await enqueue(getDb(), [jobSpec("send-mail", { organizationId, mailId: id })]);
    await runDueJobs();
    expect(smtp.received.filter((mail) => mail.to.includes("twice@example.test"))).toHaveLength(1);
    expect(await mailRow(id)).toMatchObject({ status: "sent", attempts: 1 });
  });
});

describe("without SMTP_URL an alert is logged and kept for the dev mailbox", () => {
  it("stores the mail as logged, logs recipient and subject only, and lists it for its organization alone", async () => {
    const logs = captureLogs();
    const { endpoint, alertEmail, organizationId, ctx } = await alertingEndpointFixture({ thresholdSeconds: 60, name: "Billing" });
    const t0 = new Date();
    await insertDelivery({ organizationId, endpointId: endpoint.id, status: "pending", receivedAt: later(t0, -minutes(5)) });
    await checkAlerts({ input: { now: t0 } });
    await runDueJobs();

    const [mail, ...others] = await listMails({ ctx, input: { viewerEmail: "someone@example.test" } });
    expect(others).toEqual([]);
    expect(mail).toMatchObject({ status: "logged", recipients: [alertEmail], attempts: 1 });
    expect(mail!.subject).toContain("Billing");
    expect(mail!.textBody).toContain(`/deliveries?endpointId=${endpoint.id}&status=pending`);
    expect(mail!.sentAt).toBeInstanceOf(Date);

    const lines = logs.messages().filter((line) => line.startsWith("[mail]"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(alertEmail!);
    expect(lines[0]).toContain(mail!.subject);
    expect(lines[0]).not.toContain("/deliveries?");

    const stranger = await createOrganizationFixture();
    expect(await listMails({ ctx: stranger.ctx, input: { viewerEmail: "someone@example.test" } })).toEqual([]);
    const [incident] = await getDb().select().from(incidents).where(and(eq(incidents.endpointId, endpoint.id)));
    expect(incident!.notifyError).toBeNull();
  });
});
