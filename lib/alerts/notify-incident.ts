import { and, eq, sql } from "drizzle-orm";
import { incidents } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { queueMail } from "@/lib/mail/queue-mail";
import type { AlertEndpoint } from "./alert-endpoint";
import { alertRecipients } from "./alert-recipients";
import { renderAlertMail, type AlertMessage } from "./render-alert-mail";

export const NO_RECIPIENTS = "No recipients: the endpoint has no alertEmail and the organization has no owner.";

/**
 * Queues one mail about an incident, in the caller's transaction, and notes it on the incident. Returns false
 * (and records why on the incident) when there is nobody to write to; the evaluator tries again next time.
 */
export async function notifyIncident({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { incidentId: string; endpoint: AlertEndpoint; message: AlertMessage; now: Date; notifiedDeadCount?: number };
}): Promise<boolean> {
  const scope = and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.id, input.incidentId));
  const to = await alertRecipients({ ctx, input });
  if (to.length === 0) {
    await ctx.db.update(incidents).set({ notifyError: NO_RECIPIENTS, updatedAt: new Date() }).where(scope);
    return false;
  }
  await queueMail({ ctx, input: { to, incidentId: input.incidentId, ...renderAlertMail(input.message) } });
  await ctx.db
    .update(incidents)
    .set({
      lastNotifiedAt: input.now,
      notificationCount: sql`${incidents.notificationCount} + 1`,
      ...(input.notifiedDeadCount === undefined ? {} : { notifiedDeadCount: input.notifiedDeadCount }),
      updatedAt: new Date(),
    })
    .where(scope);
  return true;
}
