// alertChannelIds of an endpoint or a destination (API.md "Alerts"): checked to name channels of the
// organization. A plain read of alert_channels: lib/alerts, which owns the channels, imports this folder.
import { and, eq, inArray } from "drizzle-orm";
import { alertChannels } from "@/db/schema";
import { z } from "zod";
import type { Ctx } from "@/lib/context";
import { ValidationError } from "@/lib/errors";

export const AlertChannelIdsInput = z.array(z.string().max(100)).max(20, "alertChannelIds: at most 20 channels").nullable();

/** The ids as stored (null for none, duplicates dropped), or a 400 naming the first that is not one of ctx's organization's channels. */
export async function checkedAlertChannelIds(ctx: Ctx, ids: string[] | null | undefined): Promise<string[] | null | undefined> {
  if (ids === undefined || ids === null) return ids;
  const unique = [...new Set(ids)];
  if (unique.length === 0) return null;
  const found = await ctx.db
    .select({ id: alertChannels.id })
    .from(alertChannels)
    .where(and(eq(alertChannels.organizationId, ctx.organizationId), inArray(alertChannels.id, unique)));
  const known = new Set(found.map((row) => row.id));
  const unknown = unique.find((id) => !known.has(id));
  if (unknown !== undefined) throw new ValidationError(`alertChannelIds: ${JSON.stringify(unknown)} is not an alert channel of this organization.`);
  return unique;
}
