import { and, eq } from "drizzle-orm";
import { endpoints } from "@/db/schema";
import { requestAlertEmailConfirmation } from "@/lib/alerts/request-alert-email-confirmation";
import { withTransaction, type Ctx } from "@/lib/context";
import { encryptSecret } from "@/lib/crypto/secret-box";
import { resumeEndpointDeliveries } from "@/lib/delivery/resume-endpoint-deliveries";
import { forgetEndpoint } from "@/lib/ingest/endpoint-cache";
import { assertDestinationAllowed } from "@/lib/net/destination-guard";
import type { Provider } from "@/lib/signatures/types";
import { parseInput } from "@/lib/validation";
import { UpdateEndpointInput } from "./endpoint-input";
import { assertProviderSettings, resolveSecret } from "./endpoint-secrets";
import { getEndpointRowOrThrow } from "./get-endpoint-or-throw";
import { presentEndpoint, type EndpointView } from "./present-endpoint";

/** Changes the fields given. A new `secret` replaces the old at once (use rotate-secret for a grace period). */
export async function updateEndpoint({ ctx, input }: { ctx: Ctx; input: { id: string; changes: unknown } }): Promise<EndpointView> {
  const changes = parseInput(UpdateEndpointInput, input.changes);
  const current = await getEndpointRowOrThrow({ ctx, input });
  const provider = (changes.provider ?? current.provider) as Provider;
  const genericHmac = changes.genericHmac === undefined ? current.genericHmac : changes.genericHmac;
  assertProviderSettings(provider, genericHmac);
  if (changes.destinationUrl !== undefined) await assertDestinationAllowed(changes.destinationUrl);
  const { secret } = resolveSecret(provider, changes.secret, current.secretEncrypted !== null);
  const { secret: _secret, outboundSecret, provider: _provider, genericHmac: _genericHmac, ...plain } = changes;
  const row = await withTransaction(ctx, async (ctx) => {
    const [updated] = await ctx.db
      .update(endpoints)
      .set({
        ...plain,
        provider,
        genericHmac: provider === "generic-hmac" ? genericHmac : null,
        ...(provider === "none" ? { secretEncrypted: null, previousSecretEncrypted: null } : {}),
        ...(secret ? { secretEncrypted: encryptSecret(secret), previousSecretEncrypted: null, previousSecretValidUntil: null } : {}),
        ...(outboundSecret !== undefined ? { outboundSecretEncrypted: outboundSecret ? encryptSecret(outboundSecret) : null } : {}),
        updatedAt: new Date(),
      })
      .where(and(eq(endpoints.id, current.id), eq(endpoints.organizationId, ctx.organizationId)))
      .returning();
    if (changes.alertEmail) await requestAlertEmailConfirmation({ ctx, input: { email: changes.alertEmail } });
    return updated;
  });
  forgetEndpoint(current.id);
  if (current.paused && row!.paused === false) await resumeEndpointDeliveries({ ctx, input: { endpointId: current.id } });
  return presentEndpoint(row!);
}
