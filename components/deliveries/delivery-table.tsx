// A page of deliveries, newest first; the external id opens the delivery.
import Link from "next/link";
import { RelativeTime } from "@/components/ui/relative-time";
import type { DeliverySummary } from "@/lib/delivery/presentation/present-delivery";
import { StatusBadge } from "./status-badge";

export function DeliveryTable({ deliveries, endpointNames, now }: { deliveries: DeliverySummary[]; endpointNames: Map<string, string>; now: Date }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Deliveries, newest first</caption>
        <thead className="text-xs text-slate-500">
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
        <tbody className="divide-y divide-slate-200">
          {deliveries.map((delivery) => (
            <tr key={delivery.id} data-testid="delivery-row" data-delivery-id={delivery.id} className="align-top">
              <td className="py-2 pr-3"><StatusBadge status={delivery.status} /></td>
              <td className="py-2 pr-3 font-mono text-xs">{delivery.eventType ?? <span className="text-slate-400">none</span>}</td>
              <td className="max-w-48 truncate py-2 pr-3 font-mono text-xs">
                <Link href={`/deliveries/${delivery.id}`} className="text-indigo-700 hover:underline" title={delivery.externalId}>{delivery.externalId}</Link>
              </td>
              <td className="py-2 pr-3 text-xs">{endpointNames.get(delivery.endpointId) ?? delivery.endpointId}</td>
              <td className="py-2 pr-3 text-xs"><RelativeTime iso={delivery.receivedAt} now={now} /></td>
              <td className="py-2 pr-3 text-right tabular-nums">{delivery.attemptCount}</td>
              <td className="py-2 pr-3 text-right tabular-nums">{delivery.lastStatusCode ?? "—"}</td>
              <td className="max-w-72 py-2 text-xs break-words text-red-800" data-testid="last-error">{delivery.lastError ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
