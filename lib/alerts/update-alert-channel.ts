import { and, eq } from "drizzle-orm";
import { alertChannels } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { encryptSecret } from "@/lib/crypto/secret-box";
import { NotFoundError, ValidationError } from "@/lib/errors";
import { parseInput } from "@/lib/validation";
import { checkedTarget, isSecretTarget, maskedTarget, UpdateAlertChannelInput } from "./alert-channel-input";
import { alertEmailStatus } from "./alert-email-status";
import { getAlertChannelRowOrThrow } from "./get-alert-channel-or-throw";
import { presentAlertChannel, type AlertChannelView } from "./present-alert-channel";
import { requestAlertEmailConfirmation } from "./request-alert-email-confirmation";

/** Changes a channel's name or target (checked as at creation); its type and a webhook's secret stay. */
export async function updateAlertChannel({ ctx, input }: { ctx: Ctx; input: { id: string; changes: unknown } }): Promise<AlertChannelView> {
  const changes = parseInput(UpdateAlertChannelInput, input.changes);
  const current = await getAlertChannelRowOrThrow({ ctx, input });
  if (changes.type !== undefined && changes.type !== current.type) {
    throw new ValidationError(`type: a channel's type cannot be changed (this one is ${current.type}); add a ${changes.type} channel instead.`);
  }
  const target = changes.target === undefined ? undefined : await checkedTarget(current.type, changes.target);
  const row = await withTransaction(ctx, async (ctx) => {
    const [row] = await ctx.db
      .update(alertChannels)
      .set({
        name: changes.name,
        ...(target === undefined
          ? {}
          : { target: maskedTarget(current.type, target), targetEncrypted: isSecretTarget(current.type) ? encryptSecret(target) : null }),
        updatedAt: new Date(),
      })
      .where(and(eq(alertChannels.organizationId, ctx.organizationId), eq(alertChannels.id, current.id)))
      .returning();
    if (!row) throw new NotFoundError("Alert channel");
    if (row.type === "email" && target !== undefined) await requestAlertEmailConfirmation({ ctx, input: { email: target } });
    const changed = Object.fromEntries((["name", "target"] as const).filter((k) => row[k] !== current[k]).map((k) => [k, { from: current[k], to: row[k] }]));
    await recordAudit(ctx, { action: "alert_channel.updated", target: { type: "alert_channel", id: row.id }, details: { changes: changed } });
    return row;
  });
  return presentAlertChannel(row, row.type === "email" ? await alertEmailStatus({ ctx, input: { email: row.target } }) : null);
}
