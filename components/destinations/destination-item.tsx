"use client";

// One destination of an endpoint in its list: where it posts (or that it is pulled from), what it takes (its filter), whether it is paused;
// for those who may change it, Pause/Resume, Edit, and Delete (asked first; never the default one).
import Link from "next/link";
import { useActionState, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { formatDuration } from "@/lib/alerts/format-duration";
import type { DestinationView } from "@/lib/destinations/present-destination";
import type { DeliveryStats } from "@/lib/metrics/read-delivery-stats";
import { DestinationForm, type DestinationFormAction } from "./destination-form";
import type { PreviewAction } from "./filter-editor";
import { filterSummary } from "./filter-summary";

export interface DestinationActions {
  update: DestinationFormAction;
  remove: DestinationFormAction;
  preview: PreviewAction;
}

const none: DestinationFormAction = async () => ({});
const badge = "rounded px-1.5 py-0.5 text-xs ring-1 ring-inset";

/** "3 pending · 1 delivering · 12 delivered · 2 dead · oldest waiting 4 min"; paused, its pending are "held by a pause". */
function statsLine(stats: DeliveryStats, paused: boolean): string {
  const parts = [`${stats.pending} ${paused ? "held by a pause" : "pending"}`, `${stats.delivering} delivering`, `${stats.delivered} delivered`, `${stats.dead} dead`];
  if (stats.pending + stats.delivering > 0) parts.push(`oldest waiting ${formatDuration(stats.oldestPendingAgeSeconds)}`);
  return parts.join(" · ");
}

export function DestinationItem({ destination, stats, endpointId, actions }: {
  destination: DestinationView;
  stats: DeliveryStats | undefined;
  endpointId: string;
  actions: DestinationActions | null;
}) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [pauseState, pauseAction, pausing] = useActionState(actions?.update ?? none, {});
  const [removeState, removeAction, removing] = useActionState(actions?.remove ?? none, {});
  const { name } = destination;
  return (
    <li data-testid="destination" data-destination-id={destination.id} className="space-y-2 py-4 first:pt-0 last:pb-0">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium break-all" data-testid="destination-name">{name}</span>
        {destination.default ? <span className={`${badge} bg-indigo-50 text-indigo-800 ring-indigo-200`} data-testid="destination-default">Default</span> : null}
        {destination.type === "pull" ? <span className={`${badge} bg-sky-50 text-sky-900 ring-sky-300`} data-testid="destination-type">Pull</span> : null}
        <span data-testid="destination-state" className={`${badge} ${destination.paused ? "bg-amber-50 text-amber-900 ring-amber-300" : "bg-emerald-50 text-emerald-900 ring-emerald-300"}`}>
          {destination.paused ? "Paused" : "Active"}
        </span>
        <Link prefetch={false} href={`/deliveries?endpointId=${encodeURIComponent(endpointId)}&destinationId=${encodeURIComponent(destination.id)}`} className="ml-auto text-sm text-indigo-700 underline">
          <span className="sr-only">{`${name}: `}</span>Deliveries
        </Link>
      </div>
      {destination.autoPaused ? (
        <p className="text-sm text-amber-900" data-testid="destination-auto-paused">
          {`Paused automatically after ${destination.autoPaused.consecutiveFailures} failed attempts in a row${destination.autoPaused.failingSince ? ` since ${destination.autoPaused.failingSince.slice(0, 16).replace("T", " ")} UTC` : ""}. What arrives waits; Resume delivers it, oldest first.`}
        </p>
      ) : null}
      {destination.type === "pull" ? (
        <p className="text-xs text-slate-700" data-testid="destination-pull">No URL: its consumers pull its deliveries with leases (<code className="font-mono">POST …/destinations/{destination.id}/pull</code>).</p>
      ) : (
        <p className="font-mono text-xs break-all text-slate-700" data-testid="destination-url">{destination.url}</p>
      )}
      {stats ? <p className="text-sm text-slate-700" data-testid="destination-stats">{statsLine(stats, destination.paused)}</p> : null}
      <p className="text-sm">
        <span className="text-slate-500">Filter: </span>
        <code className="font-mono text-xs break-all" data-testid="destination-filter">{filterSummary(destination.filter)}</code>
      </p>
      <p className="text-xs text-slate-500">
        {`Up to ${destination.maxAttempts} attempts, retry base ${destination.retryBaseSeconds} s, timeout ${destination.timeoutMs} ms.`}
        {destination.rateLimit ? ` At most ${destination.rateLimit.perSecond} a second (burst ${destination.rateLimit.burst}).` : ""}
        {destination.orderingKey ? ` In order of receipt per ${destination.orderingKey}.` : ""}
        {destination.autoPause ? ` Pauses itself after ${destination.autoPause.consecutiveFailures} failed attempts in a row over ${destination.autoPause.minutes} min.` : ""}
        {destination.default ? " Its URL, pause and retries are the endpoint’s own settings." : ""}
      </p>
      {actions ? (
        <div className="flex flex-wrap items-center gap-2">
          <form action={pauseAction}>
            <input type="hidden" name="endpointId" value={endpointId} />
            <input type="hidden" name="id" value={destination.id} />
            <input type="hidden" name="pausedOnly" value="1" />
            {destination.paused ? null : <input type="hidden" name="paused" value="on" />}
            <Button type="submit" variant="secondary" disabled={pausing} aria-label={`${destination.paused ? "Resume" : "Pause"} ${name}`}>
              {destination.paused ? "Resume" : "Pause"}
            </Button>
          </form>
          <Button type="button" variant="secondary" aria-expanded={editing} aria-label={`Edit ${name}`} onClick={() => setEditing(!editing)}>Edit</Button>
          {destination.default ? null : (
            <Button type="button" variant="secondary" aria-label={`Delete ${name}…`} aria-expanded={confirming} onClick={() => setConfirming(true)} disabled={confirming}>Delete…</Button>
          )}
        </div>
      ) : null}
      {pauseState.error ? <Alert>{pauseState.error}</Alert> : null}
      {actions && confirming ? (
        <form action={removeAction} aria-label={`Delete destination ${name}`} className="flex flex-wrap items-center gap-3 rounded-md bg-red-50 p-3 ring-1 ring-red-200">
          <input type="hidden" name="endpointId" value={endpointId} />
          <input type="hidden" name="id" value={destination.id} />
          <span className="text-sm text-red-900">{`Delete “${name}”? It stops receiving at once, and what waits for it is buried.`}</span>
          <Button type="submit" name="intent" value="confirm" variant="danger" disabled={removing}>Delete destination</Button>
          <Button type="button" variant="secondary" onClick={() => setConfirming(false)}>Cancel</Button>
          {removeState.error ? <div className="w-full"><Alert>{removeState.error}</Alert></div> : null}
        </form>
      ) : null}
      {actions && editing ? (
        <DestinationForm action={actions.update} previewAction={actions.preview} endpointId={endpointId} destination={destination} onCancel={() => setEditing(false)} />
      ) : null}
    </li>
  );
}
