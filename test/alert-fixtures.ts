// For alert tests (lib/alerts, jobs/check-alerts, the mail and incident tests): an organization with an
// alerting endpoint, deliveries inserted as rows (ingest and the deliver task are not needed to put a
// backlog in place), and running queued jobs with the product's tasks. Kept under test/, as it runs jobs/:
// lib/ never imports jobs/.
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { runOnce } from "graphile-worker";
import { afterAll, beforeAll } from "vitest";
import { getDb } from "@/db";
import { deliveries, deliveryPayloads, incidents, memberships, users, type DeliveryStatus } from "@/db/schema";
import { taskList } from "@/jobs";
import { checkAlerts } from "@/lib/alerts/check-alerts";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { newId } from "@/lib/ids";
import { startTestSmtpServer, type TestSmtpServer } from "@/test/smtp-server";
import { quietGraphileLogger } from "@/lib/runtime/migrate";
import { createOrganizationFixture } from "@/test/fixtures";

export async function alertingEndpointFixture(
  options: { thresholdSeconds?: number | null; alertEmail?: string | null; name?: string; settings?: Record<string, unknown> } = {},
) {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true"; // its destination is a loopback url
  const organization = await createOrganizationFixture();
  const alertEmail = options.alertEmail === undefined ? await addMember(organization.organizationId) : options.alertEmail;
  const endpoint = await createEndpoint({
    ctx: organization.ctx,
    input: {
      name: options.name ?? "Stripe production",
      provider: "none",
      destinationUrl: "http://127.0.0.1:9/hook",
      alertPendingAgeSeconds: options.thresholdSeconds === undefined ? 300 : options.thresholdSeconds,
      alertEmail,
      ...options.settings,
    },
  });
  return { ...organization, endpoint, alertEmail };
}

/**
 * A member (not an owner) of the organization, whose address may receive alerts without confirmation;
 * alert-email-confirmation.int.test.ts covers addresses outside the organization.
 */
export async function addMember(organizationId: string): Promise<string> {
  const email = `ops-${randomBytes(4).toString("hex")}@example.test`;
  const userId = newId("usr");
  // Never signs in, so no real password hash is needed (and none is slow to make).
  await getDb().insert(users).values({ id: userId, email, passwordHash: "none" });
  await getDb().insert(memberships).values({ organizationId, userId, role: "admin" });
  return email;
}

export async function insertDelivery(input: {
  organizationId: string;
  endpointId: string;
  status: DeliveryStatus;
  receivedAt: Date;
  /** Since when it waits (its latest replay); its receipt by default, as ingest stores it. */
  pendingSince?: Date;
  updatedAt?: Date;
  lastError?: string | null;
  /** Its endpoint's default destination unless named. */
  destinationId?: string;
}): Promise<string> {
  const id = newId("dlv");
  await getDb()
    .insert(deliveries)
    .values({
      id,
      organizationId: input.organizationId,
      endpointId: input.endpointId,
      destinationId: input.destinationId ?? defaultDestinationId(input.endpointId),
      externalId: `evt_${randomBytes(6).toString("hex")}`,
      status: input.status,
      sizeBytes: 2,
      receivedAt: input.receivedAt,
      pendingSince: input.pendingSince ?? input.receivedAt,
      updatedAt: input.updatedAt ?? input.receivedAt,
      lastError: input.lastError ?? null,
    });
  await getDb().insert(deliveryPayloads).values({ deliveryId: id, organizationId: input.organizationId, headers: { "content-type": "application/json" }, body: Buffer.from("{}") });
  return id;
}

export async function setDeliveryStatus(endpointId: string, status: DeliveryStatus): Promise<void> {
  await getDb().update(deliveries).set({ status, updatedAt: new Date() }).where(eq(deliveries.endpointId, endpointId));
}

/** Runs every job that is due, with the worker's task list, then returns (graphile-worker's runOnce). */
export async function runDueJobs(): Promise<void> {
  await runOnce({ connectionString: process.env.DATABASE_URL!, taskList, logger: quietGraphileLogger });
}

/**
 * For a test file: a real SMTP server that SMTP_URL names while its tests run (with `env` set too), the mails it
 * received for an address, and the alert sweep at `now` followed by the mail jobs it queued.
 */
export function useAlertMailbox(env: Record<string, string> = {}) {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startTestSmtpServer();
    Object.assign(process.env, { SMTP_URL: smtp.url, ...env });
  });
  afterAll(async () => {
    delete process.env.SMTP_URL;
    await smtp.close();
  });
  return {
    mailsTo: (address: string | null) => smtp.received.filter((mail) => mail.to.includes(address ?? "")),
    sweep: async (now: Date) => {
      await checkAlerts({ input: { now } });
      await runDueJobs();
    },
  };
}

export async function incidentsOf(endpointId: string, kind: "pending_age" | "dead_deliveries") {
  return getDb()
    .select()
    .from(incidents)
    .where(and(eq(incidents.endpointId, endpointId), eq(incidents.kind, kind)))
    .orderBy(incidents.openedAt);
}

export const minutes = (n: number) => n * 60_000;
export const later = (from: Date, ms: number) => new Date(from.getTime() + ms);
