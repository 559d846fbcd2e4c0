// Lets a hot-path statement over a batch of deliveries read only the weeks its ids fall in. The worker's
// statements run as generic plans (db/index.ts hotPathPlanCacheMode), and a batch's ids reach them as JSON
// joined to the partitioned tables, which no plan can prune: each execution opened every week's partition and
// index of each table it names, and kept with a year's retention (53 weeks), that cost ~2.7× a statement's
// time (pgbench, a claim-like statement: 0.98 against 0.37 ms) and 15–70 % more PostgreSQL CPU per webhook
// (bench:e2e). A parameter range on the partition key (`id between $first and $last`) is pruned as the
// generic plan starts, to the weeks between the batch's oldest and newest ids: 0.50 ms at 53 weeks.
import { isId } from "@/lib/ids";

export interface IdRange {
  first: string;
  last: string;
}

/**
 * The least and greatest of the ids, when every one is a delivery id newId made (`dlv_` and 25 base-36
 * digits: one length, one alphabet, so JavaScript's order is the database's under any collation); null
 * otherwise (an id not named, a hand-made one), and the statement reads every week.
 */
export function batchIdRange(ids: readonly (string | null)[]): IdRange | null {
  let first: string | undefined;
  let last: string | undefined;
  for (const id of ids) {
    if (id === null || !isId("dlv", id)) return null;
    if (first === undefined || id < first) first = id;
    if (last === undefined || id > last) last = id;
  }
  return first === undefined || last === undefined ? null : { first, last };
}

/**
 * SQL: `and <column> between <first> and <last>` in the statement made for a range; in the other, whose batch
 * names some delivery it cannot give (an endpoint's oldest parked one), `and <column> >= <first>`, there the
 * least delivery id floor of the batch's organizations (lib/storage/delivery-id-floor.ts floorOfEndpoints): it
 * reads the weeks from theirs on, not the weeks only another organization keeps. The parameters are the
 * statement's own (`$6`): a statement text is made for each of the two cases.
 */
export function withinIdRange(ranged: boolean, column: string, first: string, last: string): string {
  return ranged ? `and ${column} between ${first}::text and ${last}::text` : `and ${column} >= ${first}::text`;
}

/**
 * Which of a statement's two texts a batch runs, and the parameters that text adds after the statement's own:
 * the least and greatest id, or, when some id is not known, the floor (`floor()`, asked only then).
 */
export async function batchIdBounds(
  ids: readonly (string | null)[],
  floor: () => Promise<string>,
): Promise<{ variant: "ranged" | "unranged"; bounds: string[] }> {
  const range = batchIdRange(ids);
  return range ? { variant: "ranged", bounds: [range.first, range.last] } : { variant: "unranged", bounds: [await floor()] };
}
