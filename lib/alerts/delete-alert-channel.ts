import { and, eq, sql } from "drizzle-orm";
import { alertChannels } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";

/**
 * Deletes a channel and takes it out of every endpoint's and destination's alertChannelIds in the same
 * transaction (one left with none falls back as if it had named none). Its recorded notifications stay.
 */
export async function deleteAlertChannel({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<void> {
  await withTransaction(ctx, async (ctx) => {
    const [deleted] = await ctx.db
      .delete(alertChannels)
      .where(and(eq(alertChannels.organizationId, ctx.organizationId), eq(alertChannels.id, input.id)))
      .returning();
    if (!deleted) throw new NotFoundError("Alert channel");
    await ctx.db.execute(sql`
      update endpoints set alert_channel_ids = nullif(array_remove(alert_channel_ids, ${deleted.id}), '{}')
      where organization_id = ${ctx.organizationId} and ${deleted.id} = any(alert_channel_ids)`);
    await ctx.db.execute(sql`
      update destinations set alert_channel_ids = nullif(array_remove(alert_channel_ids, ${deleted.id}), '{}')
      where organization_id = ${ctx.organizationId} and ${deleted.id} = any(alert_channel_ids)`);
    await recordAudit(ctx, { action: "alert_channel.deleted", target: { type: "alert_channel", id: deleted.id }, details: { name: deleted.name, type: deleted.type } });
  });
}
