import { count, eq, sql } from "drizzle-orm";
import { endpoints } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import type { Tx } from "@/db";
import { config } from "@/lib/config/config";
import { LimitReachedError } from "@/lib/errors";

/**
 * Refuses (409 limit_reached) when the organization already has its maximum of endpoints. Call inside
 * the creating transaction: it locks the organization's row until the commit, so two creates at
 * limit − 1 cannot both count the same number. FOR NO KEY UPDATE, not FOR UPDATE: it does not
 * conflict with the KEY SHARE locks that inserts referencing the organization (ingest) take.
 */
export async function assertUnderEndpointLimit({ ctx }: { ctx: Ctx & { db: Tx } }): Promise<void> {
  await ctx.db.execute(sql`select 1 from organizations where id = ${ctx.organizationId} for no key update`);
  const [row] = await ctx.db.select({ n: count() }).from(endpoints).where(eq(endpoints.organizationId, ctx.organizationId));
  const max = config().ORG_MAX_ENDPOINTS;
  if (row!.n >= max) {
    throw new LimitReachedError(`This organization has reached its limit of ${max} endpoints; delete one before creating another.`);
  }
}
