// An endpoint's destinations (API.md "Destinations"): each request it stores goes to every one whose filter matches.
// Viewers see the list without a control that changes it.
import type { DestinationView } from "@/lib/destinations/present-destination";
import type { DeliveryStats } from "@/lib/metrics/read-delivery-stats";
import { AddDestination } from "./add-destination";
import type { DestinationFormAction } from "./destination-form";
import { DestinationItem, type DestinationActions } from "./destination-item";

export function DestinationList({ destinations, stats, endpointId, actions }: {
  destinations: DestinationView[];
  /** Each destination's own counts, by its id. */
  stats: Record<string, DeliveryStats>;
  endpointId: string;
  /** Null for a viewer. */
  actions: (DestinationActions & { create: DestinationFormAction }) | null;
}) {
  // The default one first (it is the endpoint's own), then oldest first, as they were added.
  const ordered = [...destinations].sort((a, b) => Number(b.default) - Number(a.default) || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-600">
        Each request this endpoint stores is handed to every destination whose filter matches it, each with its own retries and pause;
        a request no filter matches is kept as <em>filtered</em>.
      </p>
      <ul aria-label="Destinations" className="divide-y divide-slate-200">
        {ordered.map((destination) => (
          <DestinationItem key={destination.id} destination={destination} stats={stats[destination.id]} endpointId={endpointId} actions={actions} />
        ))}
      </ul>
      {actions ? <AddDestination action={actions.create} previewAction={actions.preview} endpointId={endpointId} /> : null}
    </div>
  );
}
