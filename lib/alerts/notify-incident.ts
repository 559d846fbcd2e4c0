import { and, eq, sql } from "drizzle-orm";
import { incidents, type NotificationEvent } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import type { AlertEndpoint } from "./alert-endpoint";
import { alertRecipients } from "./alert-recipients";
import { incidentChannels } from "./incident-channels";
import { incidentMessage, type IncidentFacts } from "./incident-message";
import { queueNotification } from "./queue-notification";
import { renderAlertMail, type AlertMessage } from "./render-alert-mail";

export const NO_RECIPIENTS = "No recipients: the endpoint has no alertEmail and the organization has no owner.";

/**
 * Tells an incident, in the caller's transaction, and notes it on the incident. `event`: "opened" and
 * "resolved" go to every channel the incident's destination (else endpoint) names, once each; reminders and
 * later counts ("reminder", "update") go by mail only. The mail (alertEmail, else the owners) goes when no
 * channel is named or alertEmail is set; `mail: false` keeps it quiet (a resolution mail never promised).
 * Returns false (and records why on the incident) when there is nobody to tell; the evaluator tries again.
 */
export async function notifyIncident({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: {
    incidentId: string;
    endpoint: AlertEndpoint;
    destination?: { id: string; name: string } | null;
    message: AlertMessage;
    event: NotificationEvent;
    now: Date;
    notifiedDeadCount?: number;
    mail?: boolean;
  };
}): Promise<boolean> {
  const scope = and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.id, input.incidentId));
  const [incident] = await ctx.db.select().from(incidents).where(scope);
  if (!incident) return false;
  const facts: Omit<IncidentFacts, "endpoint"> = {
    id: incident.id,
    kind: incident.kind,
    status: incident.resolvedAt ? "resolved" : "open",
    openedAt: incident.openedAt.toISOString(),
    resolvedAt: incident.resolvedAt?.toISOString() ?? null,
    destination: input.destination ?? null,
  };
  const message = incidentMessage(input.message, facts);
  const channels = await incidentChannels({ ctx, input: { endpointId: input.endpoint.id, destinationId: input.destination?.id } });
  const toChannels = input.event === "opened" || input.event === "resolved";
  const rendered = renderAlertMail(input.message);

  let told = false;
  if (input.mail !== false && (channels.length === 0 || input.endpoint.alertEmail !== null)) {
    const to = await alertRecipients({ ctx, input });
    if (to.length > 0) {
      await queueNotification({ ctx, input: { incidentId: incident.id, channel: null, event: input.event, message, mail: { ...rendered, to } } });
      told = true;
    } else if (channels.length === 0) {
      await ctx.db.update(incidents).set({ notifyError: NO_RECIPIENTS, updatedAt: new Date() }).where(scope);
      return false;
    }
  }
  if (toChannels) {
    for (const channel of channels) {
      // An email channel's address awaiting confirmation: the owners meanwhile, as for alertEmail.
      const to = channel.type === "email" ? await alertRecipients({ ctx, input: { endpoint: { alertEmail: channel.target } } }) : [];
      if (channel.type === "email" && to.length === 0) continue;
      await queueNotification({ ctx, input: { incidentId: incident.id, channel, event: input.event, message, mail: { ...rendered, to } } });
    }
  }
  // Named channels count as told even for a mail-only step, so the evaluator's intervals and counts move on.
  if (told || channels.length > 0) {
    await ctx.db
      .update(incidents)
      .set({
        lastNotifiedAt: input.now,
        notificationCount: sql`${incidents.notificationCount} + 1`,
        ...(input.notifiedDeadCount === undefined ? {} : { notifiedDeadCount: input.notifiedDeadCount }),
        updatedAt: new Date(),
      })
      .where(scope);
  }
  return told || channels.length > 0;
}
