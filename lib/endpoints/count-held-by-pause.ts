// What a pause holds back: per endpoint, the deliveries pending for its paused destinations. From the counters
// (destination_delivery_counts: held less delivered and dead), one probe per paused destination, so its cost is
// the organization's paused destinations, never their backlog. Every pending delivery of a paused destination
// counts, a retry's included: none of them is sent before the resume.
import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";

/** endpoint id → deliveries its paused destinations hold; endpoints with none are left out. */
export async function countHeldByPause(ctx: Ctx): Promise<Map<string, number>> {
  const rows = await ctx.db.execute<{ endpointId: string; held: string | number }>(sql`
    select d.endpoint_id as "endpointId", sum(greatest(0, c.held - c.delivered - c.dead)) as "held"
    from destinations d
    cross join lateral (select * from destination_delivery_counts c where c.destination_id = d.id offset 0) c
    where d.organization_id = ${ctx.organizationId} and d.paused and d.deleted_at is null
    group by 1`);
  return new Map(rows.map((row) => [row.endpointId, Number(row.held)]));
}
