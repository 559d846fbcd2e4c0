// The deliveries filter: a plain GET form whose fields are the REST API's query parameters.
import Link from "next/link";
import type { ReactNode } from "react";
import type { QueryValues } from "@/lib/delivery/presentation/deliveries-page-query";
import { localInputValue } from "@/lib/time-input";

const control = "mt-1 block w-full rounded-md border-0 px-2.5 py-1.5 text-sm ring-1 ring-slate-300 focus:ring-2 focus:ring-indigo-600";
const STATUSES = ["pending", "delivering", "delivered", "dead", "filtered"];

/** A label beside (not around) its control, so a select's name is the label alone, not "Status Any status". */
function Labelled({ id, text, className = "", children }: { id: string; text: string; className?: string; children: ReactNode }) {
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">{text}</label>
      {children}
    </div>
  );
}

type Destination = { id: string; name: string; endpointId: string };

/**
 * `destinations`: the chosen endpoint's, or every endpoint's (grouped by endpoint, as names repeat across them).
 * A plain GET form: choosing another endpoint offers its destinations once the filters are applied.
 */
export function DeliveryFilters({ values, endpoints, destinations, eventTypes = [] }: {
  values: QueryValues;
  endpoints: Array<{ id: string; name: string }>;
  destinations: Destination[];
  /** Event types received, offered as the event type's suggestions (lib/delivery/list-event-types.ts). */
  eventTypes?: readonly string[];
}) {
  const groups = endpoints
    .map((endpoint) => ({ endpoint, destinations: destinations.filter((destination) => destination.endpointId === endpoint.id) }))
    .filter((group) => group.destinations.length > 0);
  const option = (destination: Destination) => <option key={destination.id} value={destination.id}>{destination.name}</option>;
  return (
    <form method="get" action="/deliveries" role="search" aria-label="Filter deliveries" className="grid items-start gap-3 sm:grid-cols-3 lg:grid-cols-4">
      <Labelled id="filter-q" text="Search" className="sm:col-span-3 lg:col-span-4">
        <input id="filter-q" type="search" name="q" defaultValue={values.q} placeholder="Delivery id, external id, event type, or words in the body (word*, &quot;a phrase&quot;)" className={control} />
      </Labelled>
      <Labelled id="filter-endpoint" text="Endpoint">
        <select id="filter-endpoint" name="endpointId" defaultValue={values.endpointId ?? ""} className={control}>
          <option value="">All endpoints</option>
          {endpoints.map((endpoint) => <option key={endpoint.id} value={endpoint.id}>{endpoint.name}</option>)}
        </select>
      </Labelled>
      <Labelled id="filter-destination" text="Destination">
        <select id="filter-destination" name="destinationId" defaultValue={values.destinationId ?? ""} className={control}>
          <option value="">All destinations</option>
          {values.endpointId
            ? destinations.filter((destination) => destination.endpointId === values.endpointId).map(option)
            : groups.map((group) => <optgroup key={group.endpoint.id} label={group.endpoint.name}>{group.destinations.map(option)}</optgroup>)}
        </select>
      </Labelled>
      <Labelled id="filter-status" text="Status">
        <select id="filter-status" name="status" defaultValue={values.status ?? ""} className={control}>
          <option value="">Any status</option>
          {STATUSES.map((status) => <option key={status} value={status}>{status}</option>)}
        </select>
      </Labelled>
      <Labelled id="filter-event-type" text="Event type">
        <input id="filter-event-type" name="eventType" defaultValue={values.eventType} placeholder="invoice.paid" list="event-type-suggestions" aria-describedby="filter-event-type-hint" className={control} />
        <datalist id="event-type-suggestions">
          {eventTypes.map((type) => <option key={type} value={type} />)}
        </datalist>
        <p id="filter-event-type-hint" className="mt-1 text-xs text-slate-600">Exact, or a prefix ending in *: <code className="font-mono">invoice.*</code></p>
      </Labelled>
      <Labelled id="filter-since" text="Received from (UTC)">
        <input id="filter-since" type="datetime-local" step={1} name="since" defaultValue={localInputValue(values.since)} className={control} />
      </Labelled>
      <Labelled id="filter-until" text="Received until (UTC)">
        <input id="filter-until" type="datetime-local" step={1} name="until" defaultValue={localInputValue(values.until)} className={control} />
      </Labelled>
      <div className="flex items-end gap-2 self-end">
        <button type="submit" className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium whitespace-nowrap text-white hover:bg-indigo-500">Apply filters</button>
        <Link prefetch={false} href="/deliveries" className="px-2 py-1.5 text-sm text-slate-600 underline">Clear</Link>
      </div>
    </form>
  );
}
