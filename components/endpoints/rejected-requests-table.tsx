// Requests ingest refused for an endpoint, with why and what to check.
import { RelativeTime } from "@/components/ui/relative-time";
import type { RejectedRequestView } from "@/lib/endpoints/list-rejected-requests";

export function RejectedRequestsTable({ rejections, now }: { rejections: RejectedRequestView[]; now: Date }) {
  if (rejections.length === 0) return <p className="text-sm text-slate-600">No refused requests. Requests that fail verification show up here.</p>;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Requests refused at the ingest URL, newest first</caption>
        <thead className="text-xs text-slate-500">
          <tr>
            <th scope="col" className="py-2 pr-3 font-medium">When</th>
            <th scope="col" className="pr-3 font-medium">Why</th>
            <th scope="col" className="pr-3 font-medium">Source IP</th>
            <th scope="col" className="font-medium">Headers sent</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-200">
          {rejections.map((rejection) => (
            <tr key={rejection.id} className="align-top" data-testid="rejected-request">
              <td className="py-2 pr-3 text-xs"><RelativeTime iso={rejection.at} now={now} /></td>
              <td className="py-2 pr-3">
                <div className="font-medium text-red-800">{rejection.reasonTitle}</div>
                <div className="text-xs text-slate-600">{rejection.message}</div>
              </td>
              <td className="py-2 pr-3 font-mono text-xs">{rejection.sourceIp ?? "unknown"}</td>
              <td className="py-2 font-mono text-xs break-words text-slate-600">{rejection.headerNames.join(", ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
