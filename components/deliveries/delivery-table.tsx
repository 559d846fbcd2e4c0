// A page of deliveries, newest first; the external id opens the delivery. Below md each row is a card
// with its status and time on the first line (components/ui/cell-label.tsx). Links do not prefetch:
// the list refreshes itself while deliveries wait, and each refresh would fetch them all again.
import Link from "next/link";
import { CellLabel, stacked } from "@/components/ui/cell-label";
import { RelativeTime } from "@/components/ui/relative-time";
import type { DeliverySummary } from "@/lib/delivery/presentation/present-delivery";
import { StatusBadge } from "./status-badge";

const cell = `${stacked.cell} py-2 pr-3`;

export function DeliveryTable({ deliveries, endpointNames, now }: { deliveries: DeliverySummary[]; endpointNames: Map<string, string>; now: Date }) {
  return (
    <div className="md:overflow-x-auto">
      <table className={stacked.table}>
        <caption className="sr-only">Deliveries, newest first</caption>
        <thead className={stacked.head}>
          <tr>
            <th scope="col" className="py-2 pr-3 font-medium">Status</th>
            <th scope="col" className="pr-3 font-medium">Event type</th>
            <th scope="col" className="pr-3 font-medium">External id</th>
            <th scope="col" className="pr-3 font-medium">Endpoint</th>
            <th scope="col" className="pr-3 font-medium">Received</th>
            <th scope="col" className="pr-3 text-right font-medium">Attempts</th>
            <th scope="col" className="pr-3 text-right font-medium">Last status</th>
            <th scope="col" className="font-medium">Last error</th>
          </tr>
        </thead>
        <tbody className={stacked.body}>
          {deliveries.map((delivery) => (
            <tr key={delivery.id} data-testid="delivery-row" data-delivery-id={delivery.id} className={stacked.row}>
              <td className={`${cell} max-md:order-1`}><StatusBadge status={delivery.status} deadReason={delivery.deadReason} /></td>
              <td className={`${cell} font-mono text-xs break-all max-md:order-3 max-md:col-span-2`}>{delivery.eventType ?? <span className="text-slate-500">no event type</span>}{delivery.test ? <TestBadge /> : null}</td>
              <td className={`${cell} font-mono text-xs max-md:order-4 max-md:col-span-2 md:max-w-48`}>
                <Link href={`/deliveries/${delivery.id}`} prefetch={false} className="block truncate text-indigo-700 hover:underline" title={delivery.externalId}>{delivery.externalId}</Link>
              </td>
              <td className={`${cell} text-xs break-words max-md:order-5`}><CellLabel>Endpoint</CellLabel>{endpointNames.get(delivery.endpointId) ?? delivery.endpointId}</td>
              <td className={`${cell} text-xs max-md:order-2 max-md:text-right`}><RelativeTime iso={delivery.receivedAt} now={now} /></td>
              <td className={`${cell} tabular-nums max-md:order-6 md:text-right`}><CellLabel>Attempts</CellLabel>{delivery.attemptCount}</td>
              <td className={`${cell} tabular-nums max-md:order-7 md:text-right`}><CellLabel>Last status</CellLabel>{delivery.lastStatusCode ?? "—"}</td>
              <td className={`${stacked.cell} py-2 text-xs break-words text-red-800 max-md:order-8 max-md:col-span-2 md:max-w-72`} data-testid="last-error">{delivery.lastError ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A test event's mark (POST /endpoints/{id}/test-event): sent from here, not received. */
export function TestBadge() {
  return <span data-testid="test-badge" className="ml-1.5 rounded bg-sky-50 px-1 py-0.5 font-sans text-xs text-sky-900 ring-1 ring-sky-300 ring-inset">test</span>;
}
