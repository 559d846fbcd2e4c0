// The dashboard's deliveries page speaks the REST API's query parameters (endpointId, destinationId,
// status, eventType, since, until, q, cursor). This reads them from the page's searchParams, accepting
// what a datetime-local input sends (no offset, taken as UTC), and writes links back.
import { DomainError } from "@/lib/errors";
import { utcTime } from "@/lib/time-input";
import { deliveryFilterFromQuery, type DeliveryFilter } from "../delivery-filter";

export type SearchParams = Record<string, string | string[] | undefined>;

export const QUERY_FIELDS = ["endpointId", "destinationId", "status", "eventType", "since", "until", "q"] as const;
export type QueryValues = Partial<Record<(typeof QUERY_FIELDS)[number] | "cursor", string>>;

export interface DeliveriesQuery {
  /** What the page was asked for, normalised: the form's values and the links' parameters. */
  values: QueryValues;
  /** The filter and search for listDeliveries; null when a value is not valid (see error). */
  filter: (DeliveryFilter & { q?: string }) | null;
  cursor: string | null;
  error: string | null;
}

export function readDeliveriesQuery(params: SearchParams): DeliveriesQuery {
  const values: QueryValues = {};
  for (const name of [...QUERY_FIELDS, "cursor"] as const) {
    const raw = params[name];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value) values[name] = name === "since" || name === "until" ? utcTime(value) : value;
  }
  try {
    const query = new URLSearchParams(Object.entries(values) as [string, string][]);
    return { values, filter: deliveryFilterFromQuery(query), cursor: values.cursor ?? null, error: null };
  } catch (error) {
    if (error instanceof DomainError) return { values, filter: null, cursor: null, error: error.message };
    throw error;
  }
}

/** /deliveries with these values (empty ones left out). */
export function deliveriesHref(values: QueryValues, changes: QueryValues = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...values, ...changes })) if (value) query.set(name, value);
  const text = query.toString();
  return text ? `/deliveries?${text}` : "/deliveries";
}

/** The bulk actions' filter from their form's hidden fields (the REST API's bulk body, q included; no cursor). */
export function bulkFilterFromForm(form: FormData): DeliveryFilter & { q?: string } {
  const filter: Record<string, string> = {};
  // Every field the list filters and searches on: a bulk action must never reach more than the list shows.
  for (const name of ["endpointId", "destinationId", "status", "eventType", "since", "until", "q"] as const) {
    const value = form.get(name);
    if (typeof value === "string" && value.trim()) filter[name] = value.trim();
  }
  return filter as DeliveryFilter & { q?: string };
}
