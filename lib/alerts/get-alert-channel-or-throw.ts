import { and, eq } from "drizzle-orm";
import { alertChannels } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import type { AlertChannelRow } from "./present-alert-channel";

/** Alert channel `id` of ctx's organization; another organization's is simply not found. */
export async function getAlertChannelRowOrThrow({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<AlertChannelRow> {
  const [row] = await ctx.db
    .select()
    .from(alertChannels)
    .where(and(eq(alertChannels.organizationId, ctx.organizationId), eq(alertChannels.id, input.id)));
  if (!row) throw new NotFoundError("Alert channel");
  return row;
}
