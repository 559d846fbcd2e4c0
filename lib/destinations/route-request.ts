// Which of an endpoint's destinations a stored request goes to: each whose filter matches it (no filter matches
// everything), one delivery row each (lib/ids.ts deliveryRowId); none → one row of status `filtered`. Filters
// are compiled when an endpoint's destinations are loaded (the ingest cache, a re-verify, a replay), never
// interpreted from their JSON per request.
import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { deliveryRowId } from "@/lib/ids";
import { logger } from "@/lib/logging/logger";
import { defaultDestinationId } from "./destination-ids";
import { compileFilter, type FilterMatch } from "./filter";
import { parseFilterBody, toFilterQuery, type FilterInput } from "./filter-input";
import { compileOrderingKey, type OrderingKeyReader } from "./ordering-key";

export interface RoutableDestination {
  id: string;
  isDefault: boolean;
  /** Null: no filter, every request matches. */
  match: FilterMatch | null;
  /** Null: no ordering key, its deliveries go in parallel. */
  orderingKey: OrderingKeyReader | null;
}

/** One delivery row of a request: its id, its destination, and whether it is the `filtered` row. */
export interface RequestLane {
  id: string;
  destinationId: string;
  filtered: boolean;
  /** Its destination's ordering key's value for this request (null: none). */
  orderingValue: string | null;
}

/** A destination row as stored, its filter compiled. A stored filter that no longer compiles matches nothing. */
export function routableDestination(row: { id: string; isDefault: boolean; filter: unknown; orderingKey?: string | null }): RoutableDestination {
  const orderingKey = compileOrderingKey(row.orderingKey ?? null);
  if (row.filter === null || row.filter === undefined) return { id: row.id, isDefault: row.isDefault, match: null, orderingKey };
  const compiled = compileFilter(row.filter);
  if (compiled.ok) return { id: row.id, isDefault: row.isDefault, match: compiled.match, orderingKey };
  logger.error({ destinationId: row.id }, `[destinations] destination ${row.id}: its stored filter does not compile (${compiled.path}: ${compiled.message}); it matches nothing`);
  return { id: row.id, isDefault: row.isDefault, match: () => false, orderingKey };
}

/** An endpoint's destinations that take new requests (not deleted), the default first (its rows keep the request's id). */
export async function loadRoutableDestinations(db: DbOrTx, endpointId: string): Promise<RoutableDestination[]> {
  const rows = await db.execute<{ id: string; is_default: boolean; filter: unknown; ordering_key: string | null }>(sql`
    select id, is_default, filter, ordering_key from destinations where endpoint_id = ${endpointId} and deleted_at is null
    order by is_default desc, id`);
  return [...rows].map((row) => routableDestination({ id: row.id, isDefault: row.is_default, filter: row.filter, orderingKey: row.ordering_key }));
}

/** What a filter sees of a request. */
export function filterInputOf(request: { headers: Record<string, string>; body: Buffer; url: string }): FilterInput {
  const url = new URL(request.url, "http://inbox.invalid");
  return { body: parseFilterBody(request.body, request.headers["content-type"]), headers: request.headers, query: toFilterQuery(url.searchParams), path: url.pathname };
}

/**
 * The rows a request is stored as. `input` is asked at most once, and only when some destination has a filter
 * or an ordering key.
 */
export function lanesFor(
  request: { id: string; endpointId: string; externalId: string },
  destinations: readonly RoutableDestination[],
  input: () => FilterInput,
): RequestLane[] {
  let seen: FilterInput | undefined;
  const matched = destinations.filter((d) => d.match === null || d.match((seen ??= input())));
  if (matched.length === 0) return [{ id: request.id, destinationId: defaultDestinationId(request.endpointId), filtered: true, orderingValue: null }];
  return matched.map((d, i) => ({
    id: deliveryRowId(request.id, d.id, i === 0),
    destinationId: d.id,
    filtered: false,
    orderingValue: d.orderingKey ? d.orderingKey({ body: (seen ??= input()).body, externalId: request.externalId }) : null,
  }));
}

/** The one row of a request to an endpoint that has its default destination alone and no filter. */
export function defaultLanes(requestId: string, endpointId: string): RequestLane[] {
  return [{ id: requestId, destinationId: defaultDestinationId(endpointId), filtered: false, orderingValue: null }];
}
