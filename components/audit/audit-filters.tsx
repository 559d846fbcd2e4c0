// The audit log filter: a plain GET form whose fields are the REST API's query parameters (the actor
// select sends one value, "type" or "type:id", read by lib/audit/audit-page-query.ts).
import Link from "next/link";
import type { ReactNode } from "react";
import { AUDIT_ACTIONS } from "@/lib/audit/audit-actions";
import type { AuditQueryValues } from "@/lib/audit/audit-page-query";
import type { AuditActorOption } from "@/lib/audit/list-audit-actors";
import { localInputValue } from "@/lib/time-input";

const control = "mt-1 block w-full rounded-md border-0 px-2.5 py-1.5 text-sm ring-1 ring-slate-300 focus:ring-2 focus:ring-indigo-600";

function Labelled({ id, text, children }: { id: string; text: string; children: ReactNode }) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">{text}</label>
      {children}
    </div>
  );
}

export function AuditFilters({ values, actors }: { values: AuditQueryValues; actors: AuditActorOption[] }) {
  const known = new Set(["", "user", "api_key", "system", ...actors.map((actor) => `${actor.type}:${actor.id}`)]);
  return (
    <form method="get" action="/audit-log" role="search" aria-label="Filter the audit log" className="grid gap-3 sm:grid-cols-2 lg:grid-cols-5">
      <Labelled id="audit-action" text="Action">
        <select id="audit-action" name="action" defaultValue={values.action ?? ""} className={control}>
          <option value="">Any action</option>
          {AUDIT_ACTIONS.map((action) => <option key={action} value={action}>{action}</option>)}
        </select>
      </Labelled>
      <Labelled id="audit-actor" text="Actor">
        <select id="audit-actor" name="actor" defaultValue={values.actor ?? ""} className={control}>
          <option value="">Anyone</option>
          <option value="user">Any member</option>
          <option value="api_key">Any API key</option>
          <option value="system">System</option>
          {/* An actor from an entry's link who is no longer a member or key stays selectable. */}
          {values.actor && !known.has(values.actor) ? <option value={values.actor}>{values.actor.split(":")[1] ?? values.actor}</option> : null}
          {actors.map((actor) => (
            <option key={actor.id} value={`${actor.type}:${actor.id}`}>{actor.type === "user" ? `Member ${actor.label}` : `API key ${actor.label}`}</option>
          ))}
        </select>
      </Labelled>
      <Labelled id="audit-since" text="From (UTC)">
        <input id="audit-since" type="datetime-local" step={1} name="since" defaultValue={localInputValue(values.since)} className={control} />
      </Labelled>
      <Labelled id="audit-until" text="Until (UTC)">
        <input id="audit-until" type="datetime-local" step={1} name="until" defaultValue={localInputValue(values.until)} className={control} />
      </Labelled>
      <div className="flex items-end gap-2">
        <button type="submit" className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium whitespace-nowrap text-white hover:bg-indigo-500">Apply filters</button>
        <Link prefetch={false} href="/audit-log" className="px-2 py-1.5 text-sm text-slate-600 underline">Clear</Link>
      </div>
    </form>
  );
}
