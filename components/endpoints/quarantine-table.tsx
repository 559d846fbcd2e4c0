// Requests refused for their signature and kept in the endpoint's quarantine: when, which event they claim to
// be (type and external id, read without the secret, unverified), why, from where, how big. Their headers and
// body stay sealed. Stacks into cards below md.
import { CellLabel, stacked } from "@/components/ui/cell-label";
import { RelativeTime } from "@/components/ui/relative-time";
import type { QuarantinedRequestView } from "@/lib/quarantine/list-quarantined-requests";

const REASONS: Record<string, string> = {
  invalid_signature: "Signature did not match",
  missing_signature: "Unsigned request",
  timestamp_out_of_tolerance: "Timestamp outside the allowed window",
};

const size = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);

export function QuarantineTable({ requests, now }: { requests: QuarantinedRequestView[]; now: Date }) {
  if (requests.length === 0) return <p className="text-sm text-slate-600">The quarantine is empty.</p>;
  return (
    <div className="md:overflow-x-auto">
      <table className={stacked.table}>
        <caption className="sr-only">Quarantined requests, newest first</caption>
        <thead className={stacked.head}>
          <tr>
            <th scope="col" className="py-2 pr-3 font-medium">Received</th>
            <th scope="col" className="pr-3 font-medium">Why refused</th>
            <th scope="col" className="pr-3 font-medium">Event (unverified)</th>
            <th scope="col" className="pr-3 font-medium">Source IP</th>
            <th scope="col" className="font-medium">Size</th>
          </tr>
        </thead>
        <tbody className={stacked.body}>
          {requests.map((request) => (
            <tr key={request.id} className={stacked.row} data-testid="quarantined-request">
              <td className={`${stacked.cell} py-2 pr-3 text-xs max-md:order-2 max-md:text-right`}><RelativeTime iso={request.receivedAt} now={now} /></td>
              <td className={`${stacked.cell} py-2 pr-3 font-medium text-red-800 max-md:order-1`} data-testid="quarantine-reason">{REASONS[request.reason] ?? request.reason.replaceAll("_", " ")}</td>
              <td className={`${stacked.cell} py-2 pr-3 text-xs break-all max-md:order-3 max-md:col-span-2`} data-testid="quarantine-event">
                <CellLabel>Event (unverified)</CellLabel>
                {request.eventType || request.externalId ? (
                  <>
                    {request.eventType ? <span className="font-mono">{request.eventType}</span> : null}
                    {request.externalId ? <span className="block font-mono text-slate-600">{request.externalId}</span> : null}
                  </>
                ) : <span className="text-slate-500">not readable without the secret</span>}
              </td>
              <td className={`${stacked.cell} py-2 pr-3 font-mono text-xs max-md:order-3 max-md:col-span-2`}><CellLabel>Source IP</CellLabel>{request.sourceIp ?? "unknown"}</td>
              <td className={`${stacked.cell} py-2 text-xs max-md:order-4 max-md:col-span-2`}><CellLabel>Size</CellLabel>{size(request.sizeBytes)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
