// The event types an organization has received, for the deliveries filter's suggestions. A skip scan of
// deliveries_org_event_type_idx (organization_id, event_type, …): each step of the recursive query is one index
// probe per partition for the next type after the last, so its cost is the number of types listed (at most
// MAX_EVENT_TYPES), never the deliveries (a plain `select distinct` reads every row of the organization).
import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";

export const MAX_EVENT_TYPES = 50;

/** Up to MAX_EVENT_TYPES distinct event types of ctx's organization's deliveries, in order. */
export async function listEventTypes({ ctx }: { ctx: Ctx }): Promise<string[]> {
  const idFloor = await deliveryIdFloor(ctx.db, ctx.organizationId);
  const next = (after: ReturnType<typeof sql> | null) => sql`(select d.event_type from deliveries d
    where d.organization_id = ${ctx.organizationId} and d.id >= ${idFloor}
      and ${after ? sql`d.event_type > ${after}` : sql`d.event_type is not null`}
    order by d.event_type limit 1)`;
  const rows = await ctx.db.execute<{ type: string }>(sql`
    with recursive types(type, n) as (
      select ${next(null)}, 1
      union all
      select ${next(sql`types.type`)}, types.n + 1 from types where types.type is not null and types.n < ${MAX_EVENT_TYPES}
    )
    select type from types where type is not null`);
  return rows.map((row) => row.type);
}
