import { and, eq, sql } from "drizzle-orm";
import { alertChannels, alertNotifications } from "@/db/schema";
import { config } from "@/lib/config/config";
import type { Ctx } from "@/lib/context";
import { decryptSecret } from "@/lib/crypto/secret-box";
import { postJson } from "@/lib/net/post-json";
import { pagerDutyRequest, slackRequest, webhookRequest, type ChannelRequest } from "./channel-requests";
import type { IncidentMessage } from "./incident-message";

/** A channel's answer was not a success, or it could not be reached; recorded on the notification. Thrown so the job retries. */
export class ChannelSendError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChannelSendError";
  }
}

/** A channel is given this long to answer, so a hanging one holds a worker's job slot briefly. */
const CHANNEL_TIMEOUT_MS = 10_000;

/**
 * Sends one stored notification to its Slack, webhook or PagerDuty channel and records the try (status,
 * attempts, error, sent at). A notification already sent is not sent again (the job is at-least-once); one
 * whose channel was deleted meanwhile fails for good.
 */
export async function sendAlertNotification({ ctx, input }: { ctx: Ctx; input: { notificationId: string; finalAttempt: boolean } }): Promise<"sent" | "already_sent" | "missing" | "channel_deleted"> {
  const scope = and(eq(alertNotifications.organizationId, ctx.organizationId), eq(alertNotifications.id, input.notificationId));
  const [row] = await ctx.db
    .select({ notification: alertNotifications, channel: alertChannels })
    .from(alertNotifications)
    .leftJoin(alertChannels, and(eq(alertChannels.id, alertNotifications.channelId), eq(alertChannels.organizationId, alertNotifications.organizationId)))
    .where(scope);
  if (!row) return "missing";
  const { notification, channel } = row;
  if (notification.status === "sent") return "already_sent";
  const record = (values: Partial<typeof alertNotifications.$inferInsert>) =>
    ctx.db.update(alertNotifications).set({ ...values, attempts: sql`${alertNotifications.attempts} + 1`, updatedAt: new Date() }).where(scope);
  if (!channel) {
    await record({ status: "failed", lastError: "The channel was deleted before this was sent." });
    return "channel_deleted";
  }

  let answer: string;
  try {
    const request = channelRequest(channel, notification.id, notification.message as IncidentMessage, notification.event);
    const reply = await postJson({ ...request, timeoutMs: CHANNEL_TIMEOUT_MS });
    if (reply.status >= 200 && reply.status < 300) {
      await record({ status: "sent", sentAt: new Date(), lastError: null });
      return "sent";
    }
    answer = `HTTP ${reply.status}${reply.body ? `: ${reply.body.replace(/\s+/g, " ").slice(0, 300)}` : ""}`;
  } catch (error) {
    answer = (error instanceof Error ? error.message : String(error)).slice(0, 500);
  }
  await record({ status: input.finalAttempt ? "failed" : "retrying", lastError: answer });
  throw new ChannelSendError(answer);
}

function channelRequest(channel: typeof alertChannels.$inferSelect, notificationId: string, message: IncidentMessage, event: typeof alertNotifications.$inferSelect.event): ChannelRequest {
  switch (channel.type) {
    case "slack":
      return slackRequest(decryptSecret(channel.targetEncrypted!), message, event);
    case "webhook":
      return webhookRequest(channel.target, decryptSecret(channel.secretEncrypted!), notificationId, message, event, new Date());
    case "pagerduty":
      return pagerDutyRequest(config().PAGERDUTY_EVENTS_URL, decryptSecret(channel.targetEncrypted!), notificationId, message, event);
    case "email":
      throw new Error("An email channel's notifications go by the mail outbox.");
  }
}
