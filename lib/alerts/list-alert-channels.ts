import { and, desc, eq, sql } from "drizzle-orm";
import { alertChannels } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { decodeCursor, encodeCursor, pageLimit } from "@/lib/pagination";
import { alertEmailStatus } from "./alert-email-status";
import { presentAlertChannel, type AlertChannelView } from "./present-alert-channel";

const createdMs = sql<Date>`date_trunc('milliseconds', ${alertChannels.createdAt})`;

/** The organization's alert channels, newest first, cursor-paginated. */
export async function listAlertChannels({ ctx, input }: {
  ctx: Ctx;
  input: { limit?: unknown; cursor?: string | null };
}): Promise<{ data: AlertChannelView[]; nextCursor: string | null }> {
  const limit = pageLimit(input.limit);
  const cursor = decodeCursor(input.cursor, "ach");
  const rows = await ctx.db
    .select()
    .from(alertChannels)
    .where(
      and(
        eq(alertChannels.organizationId, ctx.organizationId),
        cursor
          ? sql`(${createdMs} < ${cursor.atText}::timestamptz or (${createdMs} = ${cursor.atText}::timestamptz and ${alertChannels.id} < ${cursor.id}))`
          : undefined,
      ),
    )
    .orderBy(desc(createdMs), desc(alertChannels.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const data: AlertChannelView[] = [];
  for (const row of page) data.push(presentAlertChannel(row, row.type === "email" ? await alertEmailStatus({ ctx, input: { email: row.target } }) : null));
  return { data, nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null };
}
