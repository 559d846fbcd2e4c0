import { and, eq } from "drizzle-orm";
import { destinations, endpoints } from "@/db/schema";
import { requestAlertEmailConfirmation } from "@/lib/alerts/request-alert-email-confirmation";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { decryptSecret, encryptSecret } from "@/lib/crypto/secret-box";
import { NotFoundError, ValidationError } from "@/lib/errors";
import { resumeEndpointDeliveries } from "@/lib/delivery/resume-endpoint-deliveries";
import { forgetEndpoint } from "@/lib/endpoints/endpoint-cache";
import { jobSpec } from "@/lib/queue/job-registry";
import { enqueue } from "@/lib/queue/enqueue";
import { assertDestinationAllowed } from "@/lib/net/destination-guard";
import { checkedAlertChannelIds } from "@/lib/destinations/alert-channel-ids";
import { resumeResets } from "@/lib/destinations/destination-input";
import { evaluateEndpointAlerts } from "@/lib/alerts/evaluate-endpoint-alerts";
import { secretProblem } from "@/lib/signatures";
import type { Provider } from "@/lib/signatures";
import { parseInput } from "@/lib/validation";
import { UpdateEndpointInput } from "./endpoint-input";
import { assertProviderSettings, resolveSecret } from "./endpoint-secrets";
import { endpointChangeDetails } from "./endpoint-audit-details";
import { defaultDestinationFields, type EndpointRow } from "./endpoint-row";
import { getEndpointRowOrThrow } from "./get-endpoint-or-throw";
import { presentEndpoint, type EndpointView } from "./present-endpoint";
import { providerSettingsColumn, readProviderSettings } from "./provider-settings";

/** Changes the fields given. A new `secret` replaces the old at once (use rotate-secret for a grace period). */
export async function updateEndpoint({ ctx, input }: { ctx: Ctx; input: { id: string; changes: unknown } }): Promise<EndpointView> {
  const changes = parseInput(UpdateEndpointInput, input.changes);
  const current = await getEndpointRowOrThrow({ ctx, input });
  const provider = (changes.provider ?? current.provider) as Provider;
  const stored = readProviderSettings(current.provider, current.genericHmac);
  const genericHmac = changes.genericHmac === undefined ? stored.genericHmac : changes.genericHmac;
  assertProviderSettings(provider, genericHmac, changes.verifyToken);
  const verifyTokenEncrypted =
    changes.verifyToken === undefined ? stored.verifyTokenEncrypted : changes.verifyToken ? encryptSecret(changes.verifyToken) : null;
  if (changes.destinationUrl !== undefined) await assertDestinationAllowed(changes.destinationUrl);
  const { secret } = resolveSecret(provider, changes.secret, current.secretEncrypted !== null);
  // A stored HMAC secret cannot serve a provider that needs a public key (Discord, SendGrid).
  const problem = !changes.secret && provider !== current.provider && current.secretEncrypted ? secretProblem(provider, decryptSecret(current.secretEncrypted)) : null;
  if (problem) throw new ValidationError(`secret: ${problem}; give it with the provider change.`);
  const { secret: _secret, outboundSecret, provider: _provider, genericHmac: _genericHmac, verifyToken: _verifyToken,
    destinationUrl, paused, maxAttempts, retryBaseSeconds, timeoutMs, autoPause, alertChannelIds: namedChannels, deadThreshold, deadWindowMinutes, ...plain } = changes;
  const alertChannelIds = await checkedAlertChannelIds(ctx, namedChannels);
  // The endpoint's destination fields are its default destination's (API.md "Destinations"); drizzle leaves
  // out of an update the fields that are undefined.
  const destinationChanges = {
    url: destinationUrl, paused, maxAttempts, retryBaseSeconds, timeoutMs,
    outboundSecretEncrypted: outboundSecret === undefined ? undefined : outboundSecret ? encryptSecret(outboundSecret) : null,
    autoPauseFailures: autoPause === undefined ? undefined : (autoPause?.consecutiveFailures ?? null),
    autoPauseMinutes: autoPause === undefined ? undefined : (autoPause?.minutes ?? null),
    deadThreshold, deadWindowMinutes,
    ...resumeResets(paused),
  };
  const row = await withTransaction(ctx, async (ctx) => {
    const [endpoint] = await ctx.db
      .update(endpoints)
      .set({
        ...plain,
        alertChannelIds,
        provider,
        genericHmac: providerSettingsColumn(provider, { genericHmac, verifyTokenEncrypted }),
        ...(provider === "none" ? { secretEncrypted: null, previousSecretEncrypted: null } : {}),
        ...(secret ? { secretEncrypted: encryptSecret(secret), previousSecretEncrypted: null, previousSecretValidUntil: null } : {}),
        updatedAt: new Date(),
      })
      .where(and(eq(endpoints.id, current.id), eq(endpoints.organizationId, ctx.organizationId)))
      .returning();
    if (!endpoint) throw new NotFoundError("Endpoint"); // deleted since it was read
    const whereDefault = and(eq(destinations.endpointId, current.id), eq(destinations.organizationId, ctx.organizationId), eq(destinations.isDefault, true));
    // The default destination's row is written only when one of its fields is given, so a PATCH of the
    // endpoint's own settings takes no lock the delivery engine may be waiting on.
    const [destination] = Object.values(destinationChanges).some((value) => value !== undefined)
      ? await ctx.db.update(destinations).set({ ...destinationChanges, updatedAt: new Date() }).where(whereDefault).returning()
      : await ctx.db.select().from(destinations).where(whereDefault);
    if (!destination) throw new NotFoundError("Endpoint");
    const updated: EndpointRow = { ...endpoint, ...defaultDestinationFields(destination) };
    await recordAudit(ctx, { action: "endpoint.updated", target: { type: "endpoint", id: current.id }, details: endpointChangeDetails(current, updated) });
    if (changes.alertEmail) await requestAlertEmailConfirmation({ ctx, input: { email: changes.alertEmail } });
    // A new secret or scheme may verify what was refused: re-verify the quarantine (lib/quarantine).
    if (provider !== "none" && (secret || provider !== current.provider || changes.genericHmac !== undefined)) {
      await enqueue(ctx.db, [jobSpec("reverify-quarantine", { organizationId: ctx.organizationId, endpointId: current.id })]);
    }
    return updated;
  });
  forgetEndpoint(current.id);
  // After the commit (see resumeEndpointDeliveries). On every unpause asked for, not only when the row
  // read before the update was paused: a pause committed in between would leave the backlog asleep.
  if (changes.paused === false && row.paused === false) {
    await resumeEndpointDeliveries({ ctx, input: { endpointId: current.id } });
    // A resume ends the breaker's incident at once, with its notification (not at the next check).
    await evaluateEndpointAlerts({ ctx, input: { endpointId: current.id, now: new Date(), autoPausesOnly: true } });
  }
  return presentEndpoint(row);
}
