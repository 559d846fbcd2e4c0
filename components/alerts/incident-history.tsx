// The incidents page's list (server component; data from lib/alerts/list-incidents): open and recent incidents,
// each with every notification it caused and whether it arrived.
import Link from "next/link";
import { Card } from "@/components/ui/card";
import { formatDuration } from "@/lib/alerts/format-duration";
import type { IncidentView, NotificationView } from "@/lib/alerts/list-incidents";

const when = (date: Date) => `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
const badge = "rounded px-1.5 py-0.5 text-xs ring-1 ring-inset";

function title(incident: IncidentView): string {
  if (incident.kind === "dead_deliveries") return `${incident.deadCount} ${incident.deadCount === 1 ? "delivery" : "deliveries"} went dead`;
  if (incident.kind === "destination_auto_paused") return `${incident.destinationName ?? "A destination"} paused automatically after ${incident.deadCount} failed attempts`;
  const threshold = incident.thresholdSeconds === null ? "" : ` (threshold ${formatDuration(incident.thresholdSeconds)})`;
  return `Deliveries waited up to ${formatDuration(incident.peakAgeSeconds ?? 0)}${threshold}`;
}

function delivered(notification: NotificationView): { label: string; tone: string } {
  if (notification.status === "sent") return { label: `delivered${notification.sentAt ? ` ${when(notification.sentAt)}` : ""}`, tone: "bg-emerald-50 text-emerald-900 ring-emerald-300" };
  if (notification.status === "logged") return { label: "kept in the Mailbox (no SMTP_URL)", tone: "bg-slate-50 text-slate-700 ring-slate-300" };
  if (notification.status === "failed") return { label: `failed after ${notification.attempts} attempts`, tone: "bg-red-50 text-red-900 ring-red-300" };
  if (notification.status === "retrying") return { label: `retrying (${notification.attempts} failed)`, tone: "bg-amber-50 text-amber-900 ring-amber-300" };
  return { label: "queued", tone: "bg-slate-50 text-slate-700 ring-slate-300" };
}

export function IncidentHistory({ incidents }: { incidents: IncidentView[] }) {
  if (incidents.length === 0) {
    return <Card title="Incidents"><p className="text-sm text-slate-600">No incidents yet. Alerts are set per endpoint and destination (pending age, automatic pause, alert channels).</p></Card>;
  }
  return (
    <Card title="Incidents">
      <ul className="divide-y divide-slate-200" aria-label="Incidents">
        {incidents.map((incident) => (
          <li key={incident.id} data-testid="incident" className="space-y-2 py-3 text-sm">
            <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
              <span className={`${badge} ${incident.resolvedAt ? "bg-emerald-50 text-emerald-900 ring-emerald-300" : "bg-red-50 text-red-900 ring-red-300"}`}>
                {incident.resolvedAt ? "Resolved" : "Open"}
              </span>
              <span className="font-medium">{title(incident)}</span>
              <Link prefetch={false} href={`/endpoints/${incident.endpointId}`} className="text-indigo-700 hover:underline">{incident.endpointName}</Link>
            </div>
            <div className="text-slate-600">
              {incident.resolvedAt ? `${when(incident.openedAt)} to ${when(incident.resolvedAt)}` : `open since ${when(incident.openedAt)}`}
            </div>
            {incident.lastError ? <div className="break-all font-mono text-xs text-slate-500">Last error: {incident.lastError}</div> : null}
            {incident.notifications.length === 0 ? (
              <p className="text-xs text-slate-500">No notification sent.</p>
            ) : (
              <ul aria-label="Notifications" className="space-y-1">
                {incident.notifications.map((notification) => {
                  const state = delivered(notification);
                  return (
                    <li key={notification.id} data-testid="notification" className="flex flex-wrap items-baseline gap-2 text-xs">
                      <span className="text-slate-700">{`${notification.event} → ${notification.channelName} (${notification.channelType})`}</span>
                      <span className={`${badge} ${state.tone}`}>{state.label}</span>
                      {notification.lastError && notification.status !== "sent" ? <span className="break-all font-mono text-slate-500">{notification.lastError}</span> : null}
                    </li>
                  );
                })}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </Card>
  );
}
