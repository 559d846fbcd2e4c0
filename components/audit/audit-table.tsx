// A page of audit entries, newest first: when, who (a link that filters by them), what, on what, the
// details in words, and the source address. Below md each row is a card (components/ui/cell-label.tsx).
import Link from "next/link";
import { CellLabel, stacked } from "@/components/ui/cell-label";
import { exactTime, RelativeTime } from "@/components/ui/relative-time";
import { auditLogHref, type AuditQueryValues } from "@/lib/audit/audit-page-query";
import { describeAuditDetails } from "@/lib/audit/describe-audit-details";
import type { AuditEntryView } from "@/lib/audit/list-audit-log";

const cell = `${stacked.cell} py-2 pr-3`;
const ACTOR_KIND = { user: "Member", api_key: "API key", system: "System" } as const;
/** Targets with a page of their own (a deleted one answers "not found" there). */
const TARGET_PAGES: Record<string, string> = { endpoint: "/endpoints/", delivery: "/deliveries/" };

function Actor({ actor, values }: { actor: AuditEntryView["actor"]; values: AuditQueryValues }) {
  if (actor.type === "system" || !actor.id) return <span>System</span>;
  return (
    <Link prefetch={false} href={auditLogHref(values, { actor: `${actor.type}:${actor.id}`, cursor: "" })} className="text-indigo-700 hover:underline" title={`Only entries by ${actor.id}`}>
      <span className="text-xs text-slate-500">{ACTOR_KIND[actor.type]} </span>
      {actor.label ?? actor.id}
    </Link>
  );
}

export function AuditTable({ entries, values, now }: { entries: AuditEntryView[]; values: AuditQueryValues; now: Date }) {
  return (
    <div className="md:overflow-x-auto">
      <table className={stacked.table}>
        <caption className="sr-only">Audit log, newest first</caption>
        <thead className={stacked.head}>
          <tr>
            <th scope="col" className="py-2 pr-3 font-medium">When</th>
            <th scope="col" className="pr-3 font-medium">Actor</th>
            <th scope="col" className="pr-3 font-medium">Action</th>
            <th scope="col" className="pr-3 font-medium">Target</th>
            <th scope="col" className="pr-3 font-medium">Details</th>
            <th scope="col" className="font-medium">Address</th>
          </tr>
        </thead>
        <tbody className={stacked.body}>
          {entries.map((entry) => (
            <tr key={entry.id} data-testid="audit-row" data-action={entry.action} className={stacked.row}>
              <td className={`${cell} text-xs max-md:order-2 max-md:text-right`}><RelativeTime iso={entry.at} now={now} /><span className="sr-only"> ({exactTime(entry.at)})</span></td>
              <td className={`${cell} text-xs break-words max-md:order-3 max-md:col-span-2`} data-testid="audit-actor"><Actor actor={entry.actor} values={values} /></td>
              <td className={`${cell} font-mono text-xs max-md:order-1`}>{entry.action}</td>
              <td className={`${cell} font-mono text-xs break-all max-md:order-4 max-md:col-span-2`}>
                <CellLabel>Target</CellLabel>
                {TARGET_PAGES[entry.target.type] ? (
                  <Link prefetch={false} href={`${TARGET_PAGES[entry.target.type]}${entry.target.id}`} className="text-indigo-700 hover:underline">{entry.target.id}</Link>
                ) : (
                  <span>{entry.target.type === "organization" ? "organization" : `${entry.target.type} ${entry.target.id}`}</span>
                )}
              </td>
              <td className={`${cell} text-xs break-words max-md:order-5 max-md:col-span-2 md:max-w-80`} data-testid="audit-details">
                <ul>{describeAuditDetails(entry.action, entry.details).map((line, index) => <li key={index}>{line}</li>)}</ul>
              </td>
              <td className={`${stacked.cell} py-2 font-mono text-xs max-md:order-6`}><CellLabel>Address</CellLabel>{entry.ip ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
