// Open incidents of the signed-in organization (server component; data from lib/alerts/list-open-incidents).
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { formatDuration } from "@/lib/alerts/format-duration";
import { listOpenIncidents, type OpenIncidentView } from "@/lib/alerts/list-open-incidents";
import type { Ctx } from "@/lib/context";

const when = (date: Date) => `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;

function summary(incident: OpenIncidentView): { title: string; detail: string; status: "pending" | "dead" } {
  if (incident.kind === "destination_auto_paused") {
    return { title: "Destination paused automatically", detail: `${incident.destinationName ?? "a destination"}, after ${incident.deadCount} failed attempts in a row; since ${when(incident.openedAt)}`, status: "pending" };
  }
  if (incident.kind === "dead_deliveries") {
    return { title: "Deliveries went dead", detail: `${incident.deadCount} since ${when(incident.openedAt)}`, status: "dead" };
  }
  const threshold = incident.thresholdSeconds === null ? "" : ` (threshold ${formatDuration(incident.thresholdSeconds)})`;
  return {
    title: "Deliveries waiting too long",
    detail: `oldest reached ${formatDuration(incident.peakAgeSeconds ?? 0)}${threshold}; open since ${when(incident.openedAt)}`,
    status: "pending",
  };
}

export async function IncidentList({ ctx }: { ctx: Ctx }) {
  const incidents = await listOpenIncidents({ ctx });
  return (
    <Card title="Open incidents">
      {incidents.length === 0 ? (
        <p className="text-sm text-slate-600">No open incidents. Alerts are set per endpoint (oldest pending age, alert email).</p>
      ) : (
        <ul className="divide-y divide-slate-200" aria-label="Open incidents">
          {incidents.map((incident) => {
            const { title, detail, status } = summary(incident);
            return (
              <li key={incident.id} className="space-y-1 py-3 text-sm">
                <div className="flex flex-wrap items-baseline gap-x-3">
                  <span className="font-medium text-red-700">{title}</span>
                  <Link prefetch={false} href={`/endpoints/${incident.endpointId}`} className="text-indigo-700 hover:underline">{incident.endpointName}</Link>
                  <Link prefetch={false} href={`/deliveries?endpointId=${encodeURIComponent(incident.endpointId)}&status=${status}`} className="ml-auto text-xs text-indigo-700 hover:underline">
                    View deliveries
                  </Link>
                </div>
                <div className="text-slate-600">{detail}</div>
                {incident.lastError ? <div className="break-all font-mono text-xs text-slate-500">Last error: {incident.lastError}</div> : null}
                {incident.notifyError ? <Alert tone="warning">Alert mail not delivered yet: {incident.notifyError}</Alert> : null}
              </li>
            );
          })}
        </ul>
      )}
    </Card>
  );
}
