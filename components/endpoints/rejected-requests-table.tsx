// Requests ingest refused for an endpoint, with why and what to check. Stacks into cards below md.
import { CellLabel, stacked } from "@/components/ui/cell-label";
import { RelativeTime } from "@/components/ui/relative-time";
import type { RejectedRequestView } from "@/lib/endpoints/list-rejected-requests";

export function RejectedRequestsTable({ rejections, now }: { rejections: RejectedRequestView[]; now: Date }) {
  if (rejections.length === 0) return <p className="text-sm text-slate-600">No refused requests. Requests that fail verification show up here.</p>;
  return (
    <div className="md:overflow-x-auto">
      <table className={stacked.table}>
        <caption className="sr-only">Requests refused at the ingest URL, newest first</caption>
        <thead className={stacked.head}>
          <tr>
            <th scope="col" className="py-2 pr-3 font-medium">When</th>
            <th scope="col" className="pr-3 font-medium">Why</th>
            <th scope="col" className="pr-3 font-medium">Source IP</th>
            <th scope="col" className="font-medium">Headers sent</th>
          </tr>
        </thead>
        <tbody className={stacked.body}>
          {rejections.map((rejection) => (
            <tr key={rejection.id} className={stacked.row} data-testid="rejected-request">
              <td className={`${stacked.cell} py-2 pr-3 text-xs max-md:order-2 max-md:text-right`}><RelativeTime iso={rejection.at} now={now} /></td>
              <td className={`${stacked.cell} py-2 pr-3 max-md:order-1`}>
                <div className="font-medium text-red-800" data-testid="rejection-reason">{rejection.reasonTitle}</div>
                <div className="text-xs text-slate-600">{rejection.message}</div>
              </td>
              <td className={`${stacked.cell} py-2 pr-3 font-mono text-xs max-md:order-3 max-md:col-span-2`}><CellLabel>Source IP</CellLabel>{rejection.sourceIp ?? "unknown"}</td>
              <td className={`${stacked.cell} py-2 font-mono text-xs break-words text-slate-600 max-md:order-4 max-md:col-span-2`}><CellLabel>Headers sent</CellLabel>{rejection.headerNames.join(", ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
