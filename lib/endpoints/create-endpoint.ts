import { destinations, endpoints } from "@/db/schema";
import { requestAlertEmailConfirmation } from "@/lib/alerts/request-alert-email-confirmation";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { encryptSecret } from "@/lib/crypto/secret-box";
import { checkedAlertChannelIds } from "@/lib/destinations/alert-channel-ids";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { storedDeliverySettings } from "@/lib/destinations/destination-input";
import { newId } from "@/lib/ids";
import { assertDestinationAllowed } from "@/lib/net/destination-guard";
import { parseInput } from "@/lib/validation";
import { assertUnderEndpointLimit } from "./assert-under-endpoint-limit";
import { CreateEndpointInput } from "./endpoint-input";
import { assertProviderSettings, resolveSecret } from "./endpoint-secrets";
import { auditedSettings } from "./endpoint-audit-details";
import { defaultDestinationFields, type EndpointRow } from "./endpoint-row";
import { presentEndpoint, type EndpointView } from "./present-endpoint";
import { providerSettingsColumn } from "./provider-settings";

/** Creates an endpoint (within ORG_MAX_ENDPOINTS); a generated secret is returned here once and never again. */
export async function createEndpoint({ ctx, input }: { ctx: Ctx; input: unknown }): Promise<EndpointView & { secret?: string }> {
  const data = parseInput(CreateEndpointInput, input);
  assertProviderSettings(data.provider, data.genericHmac, data.verifyToken);
  await assertDestinationAllowed(data.destinationUrl);
  const { secret, generated } = resolveSecret(data.provider, data.secret);
  const alertChannelIds = await checkedAlertChannelIds(ctx, data.alertChannelIds);
  const row = await withTransaction(ctx, async (ctx) => {
    await assertUnderEndpointLimit({ ctx });
    const [inserted] = await ctx.db
      .insert(endpoints)
      .values({
        id: newId("ep"),
        organizationId: ctx.organizationId,
        name: data.name,
        provider: data.provider,
        secretEncrypted: secret ? encryptSecret(secret) : null,
        genericHmac: providerSettingsColumn(data.provider, {
          genericHmac: data.genericHmac ?? null,
          verifyTokenEncrypted: data.verifyToken ? encryptSecret(data.verifyToken) : null,
        }),
        maxBodyBytes: data.maxBodyBytes,
        toleranceSeconds: data.toleranceSeconds,
        alertPendingAgeSeconds: data.alertPendingAgeSeconds ?? null,
        alertEmail: data.alertEmail ?? null,
        alertChannelIds: alertChannelIds ?? null,
      })
      .returning();
    // Its default destination, in the same transaction: the endpoint's destination fields are that one's
    // (API.md "Destinations"), and its id is the endpoint's (destination-ids.ts).
    const [destination] = await ctx.db
      .insert(destinations)
      .values({
        id: defaultDestinationId(inserted!.id),
        organizationId: ctx.organizationId,
        endpointId: inserted!.id,
        name: "Default",
        type: "http",
        url: data.destinationUrl,
        isDefault: true,
        autoPauseFailures: data.autoPause?.consecutiveFailures ?? null,
        autoPauseMinutes: data.autoPause?.minutes ?? null,
        deadThreshold: data.deadThreshold ?? null,
        deadWindowMinutes: data.deadWindowMinutes ?? null,
        ...storedDeliverySettings(data),
      })
      .returning();
    const created: EndpointRow = { ...inserted!, ...defaultDestinationFields(destination!) };
    if (created.alertEmail) await requestAlertEmailConfirmation({ ctx, input: { email: created.alertEmail } });
    await recordAudit(ctx, { action: "endpoint.created", target: { type: "endpoint", id: created.id }, details: auditedSettings(created) });
    return created;
  });
  const view = presentEndpoint(row);
  return generated ? { ...view, secret: secret! } : view;
}
