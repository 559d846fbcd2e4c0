// Lets a hot-path statement over a batch of deliveries read only the weeks its ids fall in. The worker's
// statements run as generic plans (db/index.ts hotPathPlanCacheMode), and a batch's ids reach them as JSON
// joined to the partitioned tables, which no plan can prune: each execution opened every week's partition and
// index of each table it names, and kept with a year's retention (53 weeks), that cost ~2.7× a statement's
// time (pgbench, a claim-like statement: 0.98 against 0.37 ms) and 15–70 % more PostgreSQL CPU per webhook
// (bench:e2e). A parameter range on the partition key (`id between $first and $last`) is pruned as the
// generic plan starts, to the weeks between the batch's oldest and newest ids: 0.50 ms at 53 weeks.
import { isId, requestIdOf, timeOrderedIdFloor } from "@/lib/ids";

/**
 * The ids a batch's statement reads: between the least and greatest of the batch's ids ("range"), or, when it
 * names some delivery it cannot give (an endpoint's oldest parked one), from a delivery id floor on ("from"):
 * the least of the batch's organizations' (lib/storage/delivery-id-floor.ts floorOfDestinations), so it reads the
 * weeks from theirs on, not the weeks only another organization keeps. The values are the statement's
 * parameters (idBoundsParams); its text holds their shape (BoundsShape).
 */
export type IdBounds = { kind: "range"; first: string; last: string } | { kind: "from"; floor: string };

/**
 * What a statement's text holds of its bounds: their kind, and the start of the week their first id or floor
 * falls in (fromWeek). One text, and one prepared statement, per shape (statementPerWeek).
 */
export interface BoundsShape {
  kind: IdBounds["kind"];
  week: string;
}

/**
 * The least and greatest of the ids, when every one is a delivery id newId made (`dlv_` and 25 base-36
 * digits: one length, one alphabet, so JavaScript's order is the database's under any collation); null
 * otherwise (an id not named, a hand-made one), and the statement reads from a floor on.
 */
export function batchIdRange(ids: readonly (string | null)[]): { first: string; last: string } | null {
  let first: string | undefined;
  let last: string | undefined;
  for (const id of ids) {
    if (id === null) return null;
    // A request's row for another destination than its default (lib/ids.ts deliveryRowId) sorts just after the
    // request's id, which its payload is keyed by: the range starts at the request's id so the payload is in it.
    const request = requestIdOf(id);
    if (!isId("dlv", request)) return null;
    if (first === undefined || request < first) first = request;
    if (last === undefined || id > last) last = id;
  }
  return first === undefined || last === undefined ? null : { first, last };
}

/** A batch's bounds: its range, or, when some id is not known, from `floor()` on (asked only then). */
export async function batchIdBounds(ids: readonly (string | null)[], floor: () => Promise<string>): Promise<IdBounds> {
  const range = batchIdRange(ids);
  return range ? { kind: "range", ...range } : { kind: "from", floor: await floor() };
}

/** The parameters the bounds add after a statement's own: the least and greatest id, or the floor. */
export function idBoundsParams(bounds: IdBounds): string[] {
  return bounds.kind === "range" ? [bounds.first, bounds.last] : [bounds.floor];
}

/** The shape of `bounds` that their statement's text is made for. */
export function boundsShape(bounds: IdBounds): BoundsShape {
  return { kind: bounds.kind, week: weekStartOf(bounds.kind === "range" ? bounds.first : bounds.floor) };
}

/**
 * SQL: `and <column> between <first> and <last>` for a range, `and <column> >= <first>` (the floor) from a
 * floor, then fromWeek's bound of the shape's week. `first` and `last` name the statement's parameters (`$6`);
 * bounds that are always a floor need no `last`.
 */
export function withinIdBounds(shape: BoundsShape, column: string, first: string, last?: string): string {
  if (shape.kind === "range" && last === undefined) throw new Error(`a range of ${column} needs its last id's parameter`);
  const bound = shape.kind === "range" ? `and ${column} between ${first}::text and ${last}::text` : `and ${column} >= ${first}::text`;
  return shape.week === "" ? bound : `${bound} ${fromWeek(column, shape.week)}`;
}

/**
 * The id where the week holding `id` begins, as its partition's bound (Monday 00:00 UTC, migration 0027's
 * inbox_make_delivery_week): '' when `id` is not a time-ordered delivery id or floor (lib/ids.ts), or names no
 * time (a floor of '').
 */
export function weekStartOf(id: string): string {
  const monday = mondayOf(id);
  return monday === null ? "" : timeOrderedIdFloor("dlv", monday);
}

/** The Monday 00:00 UTC (ms) of the week a time-ordered delivery id or floor was made in; null for any other. */
function mondayOf(id: string): number | null {
  const time = /^dlv_g([0-9a-z]{9})/.exec(id)?.[1];
  if (!time) return null;
  const day = new Date(parseInt(time, 36));
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() - ((day.getUTCDay() + 6) % 7));
}

const WEEK_MS = 7 * 86_400_000;

/** The start of the week `weeks` after the one `id` falls in; '' when `id` is not a time-ordered id or floor. */
export function weeksAfter(id: string, weeks: number): string {
  const monday = mondayOf(id);
  return monday === null ? "" : timeOrderedIdFloor("dlv", monday + weeks * WEEK_MS);
}

/**
 * Splits a shared batch so that one organization's old ids do not make everyone's statement plan, lock and
 * read the weeks back to them (a replay of a delivery kept for months; a chain from a floor a year back): a
 * statement reads from its oldest id's week on. `recent`: the items whose oldest id (`oldestIdOf`; null for
 * none) is in the newest one's week or the week before; `older`: the rest, for a statement of their own.
 * `recent` is empty only when `items` is.
 */
export function splitOlder<T>(items: readonly T[], oldestIdOf: (item: T) => string | null): { recent: T[]; older: T[] } {
  let newest: string | undefined;
  for (const item of items) {
    const id = oldestIdOf(item);
    if (id !== null && mondayOf(id) !== null && (newest === undefined || id > newest)) newest = id;
  }
  if (newest === undefined) return { recent: [...items], older: [] };
  const cutoff = timeOrderedIdFloor("dlv", mondayOf(newest)! - WEEK_MS);
  const recent: T[] = [];
  const older: T[] = [];
  for (const item of items) {
    const id = oldestIdOf(item);
    (id !== null && id < cutoff ? older : recent).push(item);
  }
  return { recent, older };
}

/**
 * SQL: `and <column> >= '<from>'`, the start of the oldest week a statement reads, written into its text. A
 * parameter bound is pruned as a generic plan starts, but PostgreSQL 15 first locks every partition the plan
 * holds: at a year of weeks (~55 a table) each statement took ~165 locks, past the 16 a backend takes cheaply. A
 * constant is pruned as the plan is made, so the plan holds, and locks, only the weeks from there on. One text,
 * and one prepared statement, a week (statementPerWeek; a past week's go with their connection, which postgres.js
 * replaces every 30–60 minutes); '' adds nothing. `from` is weekStartOf's: digits only.
 */
export function fromWeek(column: string, from: string): string {
  if (from === "") return "";
  if (!/^dlv_g[0-9a-z]{9}$/.test(from)) throw new Error(`not the start of a week: ${from}`);
  return `and ${column} >= '${from}'`;
}

/**
 * A statement's text for each shape of its bounds (its own, then any others it reads by, null for none), made
 * once: `make` is given their shapes (boundsShape), never their values, which are parameters. Few are ever in
 * use (this week, the weeks retries and floors fall in); past STATEMENTS_KEPT, the texts are made again.
 */
export function statementPerWeek<More extends (BoundsShape | null)[]>(
  make: (own: BoundsShape, ...more: More) => string,
): (own: IdBounds, ...more: { [K in keyof More]: IdBounds | Extract<More[K], null> }) => string {
  const texts = new Map<string, string>();
  return (own, ...more) => {
    const shapes = [own, ...(more as (IdBounds | null)[])].map((bounds) => (bounds === null ? null : boundsShape(bounds)));
    const name = shapes.map((shape) => (shape === null ? "none" : `${shape.kind}:${shape.week}`)).join("/");
    let text = texts.get(name);
    if (text === undefined) {
      if (texts.size >= STATEMENTS_KEPT) texts.clear();
      texts.set(name, (text = make(shapes[0]!, ...(shapes.slice(1) as More))));
    }
    return text;
  };
}
const STATEMENTS_KEPT = 200;
