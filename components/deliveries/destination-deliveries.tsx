// A stored request's journey to each of its endpoint's destinations that took it: one row each (API.md
// "Destinations"), with Replay and Bury for that destination alone when there are several. Stacks below md.
import { CellLabel, stacked } from "@/components/ui/cell-label";
import { RelativeTime, exactTime } from "@/components/ui/relative-time";
import type { DeliveryDetail } from "@/lib/delivery/presentation/present-delivery";
import { DestinationDeliveryActions } from "./destination-delivery-actions";
import { StatusBadge } from "./status-badge";

type Action = Parameters<typeof DestinationDeliveryActions>[0]["action"];
const cell = `${stacked.cell} py-2 pr-3`;

export function DestinationDeliveries({ delivery, action, now }: { delivery: DeliveryDetail; action: Action | null; now: Date }) {
  if (delivery.destinations.length === 0) {
    return (
      <p className="text-sm text-slate-600" data-testid="no-destination">
        No destination’s filter matched this request, so it is stored as filtered and was sent nowhere. Replay matches it against the filters as they are now.
      </p>
    );
  }
  // With one destination, the delivery's own buttons above are that destination's.
  const perDestination = action && delivery.destinations.length > 1 ? action : null;
  return (
    <div className="md:overflow-x-auto">
      <table className={stacked.table}>
        <caption className="sr-only">This delivery at each destination</caption>
        <thead className={stacked.head}>
          <tr>
            <th scope="col" className="py-2 pr-3 font-medium">Destination</th>
            <th scope="col" className="pr-3 font-medium">Status</th>
            <th scope="col" className="pr-3 text-right font-medium">Attempts</th>
            <th scope="col" className="pr-3 font-medium">Last error</th>
            <th scope="col" className="pr-3 font-medium">Next attempt / delivered</th>
            {perDestination ? <th scope="col" className="font-medium"><span className="sr-only">Actions</span></th> : null}
          </tr>
        </thead>
        <tbody className={stacked.body}>
          {delivery.destinations.map((row) => {
            const name = row.name ?? row.destinationId;
            return (
              <tr key={row.destinationId} data-testid="delivery-destination" data-destination-id={row.destinationId} className={stacked.row}>
                <td className={`${cell} font-medium break-all max-md:order-1`} data-testid="delivery-destination-name">{name}</td>
                <td className={`${cell} max-md:order-2 max-md:text-right`}><StatusBadge status={row.status} deadReason={row.deadReason} /></td>
                <td className={`${cell} tabular-nums max-md:order-3 md:text-right`}>
                  <CellLabel>Attempts</CellLabel>{row.attemptCount}{row.lastStatusCode === null ? "" : ` (last: HTTP ${row.lastStatusCode})`}
                </td>
                <td className={`${cell} text-xs break-words text-red-800 max-md:order-5 max-md:col-span-2 md:max-w-72`}>{row.lastError ?? ""}</td>
                <td className={`${cell} text-xs max-md:order-4`}>
                  {row.deliveredAt ? <span>Delivered {exactTime(row.deliveredAt)}</span> : row.nextAttemptAt ? <span>Next <RelativeTime iso={row.nextAttemptAt} now={now} /></span> : "—"}
                </td>
                {perDestination ? (
                  <td className={`${stacked.cell} py-2 max-md:order-6 max-md:col-span-2`}>
                    <DestinationDeliveryActions action={perDestination} id={delivery.id} destinationId={row.destinationId} name={name} status={row.status} />
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
