import { sql } from "drizzle-orm";
import type { NotificationEvent } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import type { IncidentSummary } from "./list-open-incidents";

export interface NotificationView {
  id: string;
  channelName: string;
  channelType: string;
  event: NotificationEvent;
  /** queued, sent, retrying, failed; for mail its mail's own (sent, logged: kept on the Mailbox page without SMTP_URL). */
  status: string;
  attempts: number;
  lastError: string | null;
  sentAt: Date | null;
}

export interface IncidentView extends IncidentSummary {
  resolvedAt: Date | null;
  notifications: NotificationView[];
}

const RECENT = 50;

type Row = Omit<IncidentView, "notifications" | "openedAt" | "resolvedAt"> & { openedAt: string | Date; resolvedAt: string | Date | null; notifications: (Omit<NotificationView, "sentAt"> & { sentAt: string | null })[] };

/**
 * The incidents page: the organization's open incidents, then its latest resolved ones (RECENT in all at most),
 * each with its notifications and whether each arrived. A mail notification's fate is its mail's.
 */
export async function listIncidents({ ctx }: { ctx: Ctx }): Promise<IncidentView[]> {
  const rows = await ctx.db.execute<Row>(sql`
    select i.id, i.kind, i.endpoint_id as "endpointId", e.name as "endpointName", d.name as "destinationName",
      i.opened_at as "openedAt", i.resolved_at as "resolvedAt", i.threshold_seconds as "thresholdSeconds",
      i.peak_age_seconds as "peakAgeSeconds", i.dead_count as "deadCount", i.last_error as "lastError",
      coalesce((
        select json_agg(json_build_object('id', n.id, 'channelName', n.channel_name, 'channelType', n.channel_type, 'event', n.event,
            'status', coalesce(m.status, n.status), 'attempts', coalesce(m.attempts, n.attempts), 'lastError', coalesce(m.error, n.last_error),
            'sentAt', coalesce(m.sent_at, n.sent_at)) order by n.created_at, n.channel_name)
        from alert_notifications n left join mails m on m.id = n.mail_id and m.organization_id = n.organization_id
        where n.incident_id = i.id and n.organization_id = i.organization_id), '[]') as notifications
    from incidents i
    join endpoints e on e.id = i.endpoint_id and e.organization_id = i.organization_id
    left join destinations d on d.id = i.destination_id and d.organization_id = i.organization_id
    where i.organization_id = ${ctx.organizationId}
    order by i.resolved_at is null desc, i.opened_at desc, i.id desc
    limit ${RECENT}`);
  return rows.map((row) => ({
    ...row,
    openedAt: new Date(row.openedAt),
    resolvedAt: row.resolvedAt ? new Date(row.resolvedAt) : null,
    notifications: row.notifications.map((n) => ({ ...n, sentAt: n.sentAt ? new Date(n.sentAt) : null })),
  }));
}
