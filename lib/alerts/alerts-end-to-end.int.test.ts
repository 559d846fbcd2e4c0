// The scenario end to end: a real local destination that fails, the real deliver task and the
// alert mail tasks run by graphile-worker in this process, a real SMTP server. Alert checks are driven with
// `now` a few minutes ahead instead of waiting for the clock.
import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { taskList } from "@/jobs";
import { getDelivery } from "@/lib/delivery/get-delivery";
import { startTestSmtpServer, type TestSmtpServer } from "@/test/smtp-server";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, startDestination, startTestWorker, until, type Destination } from "@/test/delivery-fixtures";
import { alertingEndpointFixture, later, minutes } from "@/test/alert-fixtures";
import { checkAlerts } from "./check-alerts";
import { listOpenIncidents } from "./list-open-incidents";

useTestDatabase();
let smtp: TestSmtpServer;
let destination: Destination;
let worker: Runner;

beforeAll(async () => {
  process.env.DELIVERY_LOG = "problems";
  smtp = await startTestSmtpServer();
  process.env.SMTP_URL = smtp.url;
  destination = await startDestination((_request, response) => {
    response.statusCode = 503;
    response.end("upstream down");
  });
  worker = await startTestWorker(taskList, { concurrency: 4 });
});

afterAll(async () => {
  await worker?.stop();
  await destination?.close();
  await smtp?.close();
  delete process.env.SMTP_URL;
});

describe("a failing destination raises one alert mail, and its recovery one recovery mail", () => {
  it("mails once while the backlog is old, then once when it has drained", { timeout: 60_000 }, async () => {
    const { ctx, endpoint, alertEmail } = await alertingEndpointFixture({
      thresholdSeconds: 60,
      name: "Payments",
      settings: { destinationUrl: destination.url, retryBaseSeconds: 1, maxAttempts: 20 },
    });
    const { id } = await createDeliveryFixture({ ctx, endpointId: endpoint.id });
    const failed = await until("a failed attempt to be recorded", async () => {
      const delivery = await getDelivery({ ctx, input: { id } });
      return delivery.lastError ? delivery : null;
    });
    expect(failed.status).not.toBe("delivered");

    const start = new Date();
    await checkAlerts({ input: { now: later(start, minutes(2)) } });
    const [alert] = await until("the alert mail", () => (smtp.received.length >= 1 ? smtp.received : null));
    expect(alert!.to).toEqual([alertEmail]);
    expect(alert!.subject).toContain("Payments");
    expect(alert!.text).toContain("503");
    expect(await listOpenIncidents({ ctx })).toHaveLength(1);

    await checkAlerts({ input: { now: later(start, minutes(3)) } });
    destination.setHandler((_request, response) => void response.end("ok"));
    await until("the delivery to be delivered on a retry", async () => (await getDelivery({ ctx, input: { id } })).status === "delivered");
    await checkAlerts({ input: { now: later(start, minutes(4)) } });
    await until("the recovery mail", () => smtp.received.length >= 2);
    await checkAlerts({ input: { now: later(start, minutes(5)) } });
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(smtp.received.map((mail) => mail.subject.startsWith("[Webhook Inbox] Recovered: Payments"))).toEqual([false, true]);
    expect(await listOpenIncidents({ ctx })).toEqual([]);
  });
});
