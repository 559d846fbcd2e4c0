import { and, eq, sql } from "drizzle-orm";
import { alertNotifications, type NotificationEvent } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { newId } from "@/lib/ids";
import { queueMail } from "@/lib/mail/queue-mail";
import { enqueue } from "@/lib/queue/enqueue";
import { jobSpec } from "@/lib/queue/job-registry";
import type { IncidentMessage } from "./incident-message";
import type { AlertChannelRow } from "./present-alert-channel";
import type { RenderedMail } from "./render-alert-mail";

/**
 * Records one notification and queues what carries it, in the caller's transaction: a mail (the outbox
 * retries it; its fate is the mail's) for the default mail and email channels, else a notify-alert-channel
 * job of its own, retried with backoff apart from every other channel's. Opened and resolved go once per
 * (incident, channel): a second ask is a no-op (null).
 */
export async function queueNotification({ ctx, input }: {
  ctx: Ctx;
  input: {
    incidentId: string | null;
    /** null: the default mail. */
    channel: AlertChannelRow | null;
    event: NotificationEvent;
    message: IncidentMessage;
    /** For mail: its recipients and words. */
    mail?: RenderedMail & { to: string[] };
  };
}): Promise<string | null> {
  const { channel } = input;
  const id = newId("ntf");
  const [recorded] = await ctx.db.execute<{ id: string }>(sql`
    insert into alert_notifications (id, organization_id, incident_id, channel_id, channel_type, channel_name, event, message)
    values (${id}, ${ctx.organizationId}, ${input.incidentId}, ${channel?.id ?? null}, ${channel?.type ?? "email"},
      ${channel?.name ?? "Alert mail"}, ${input.event}, ${JSON.stringify(input.message)}::jsonb)
    on conflict (incident_id, channel_id, event) where incident_id is not null and channel_id is not null and event in ('opened', 'resolved')
    do nothing
    returning id`);
  if (!recorded) return null;
  if (!channel || channel.type === "email") {
    if (!input.mail) throw new Error("A mail notification needs its mail.");
    const { id: mailId } = await queueMail({ ctx, input: { to: input.mail.to, subject: input.mail.subject, text: input.mail.text, html: input.mail.html, incidentId: input.incidentId } });
    await ctx.db
      .update(alertNotifications)
      .set({ mailId })
      .where(and(eq(alertNotifications.organizationId, ctx.organizationId), eq(alertNotifications.id, id)));
  } else {
    await enqueue(ctx.db, [jobSpec("notify-alert-channel", { organizationId: ctx.organizationId, notificationId: id, channelId: channel.id })]);
  }
  return id;
}
