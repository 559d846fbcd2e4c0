import { randomBytes } from "node:crypto";
import { count, eq, sql } from "drizzle-orm";
import { alertChannels } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { encryptSecret } from "@/lib/crypto/secret-box";
import { LimitReachedError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { parseInput } from "@/lib/validation";
import { checkedTarget, CreateAlertChannelInput, isSecretTarget, MAX_ALERT_CHANNELS, maskedTarget } from "./alert-channel-input";
import { requestAlertEmailConfirmation } from "./request-alert-email-confirmation";
import { presentAlertChannel, type AlertChannelView } from "./present-alert-channel";

/**
 * Adds an alert channel to ctx's organization. An email channel's address gets the confirmation mail
 * alertEmail gets (a member's needs none); a webhook channel gets its signing secret, returned here once.
 */
export async function createAlertChannel({ ctx, input }: { ctx: Ctx; input: unknown }): Promise<AlertChannelView & { secret?: string }> {
  const data = parseInput(CreateAlertChannelInput, input);
  const target = await checkedTarget(data.type, data.target);
  const secret = data.type === "webhook" ? `whsec_${randomBytes(32).toString("base64")}` : undefined;
  const { row, emailStatus } = await withTransaction(ctx, async (ctx) => {
    // Counted under the organization's row lock, so two creates at the limit − 1 cannot both pass.
    await ctx.db.execute(sql`select 1 from organizations where id = ${ctx.organizationId} for no key update`);
    const [{ n }] = (await ctx.db.select({ n: count() }).from(alertChannels).where(eq(alertChannels.organizationId, ctx.organizationId))) as [{ n: number }];
    if (n >= MAX_ALERT_CHANNELS) throw new LimitReachedError(`This organization has reached its limit of ${MAX_ALERT_CHANNELS} alert channels; delete one before adding another.`);
    const [row] = await ctx.db
      .insert(alertChannels)
      .values({
        id: newId("ach"),
        organizationId: ctx.organizationId,
        name: data.name,
        type: data.type,
        target: maskedTarget(data.type, target),
        targetEncrypted: isSecretTarget(data.type) ? encryptSecret(target) : null,
        secretEncrypted: secret ? encryptSecret(secret) : null,
      })
      .returning();
    const emailStatus = data.type === "email" ? await requestAlertEmailConfirmation({ ctx, input: { email: target } }) : null;
    await recordAudit(ctx, { action: "alert_channel.created", target: { type: "alert_channel", id: row!.id }, details: { name: row!.name, type: row!.type, target: row!.target } });
    return { row: row!, emailStatus };
  });
  const view = presentAlertChannel(row, emailStatus);
  return secret ? { ...view, secret } : view;
}
