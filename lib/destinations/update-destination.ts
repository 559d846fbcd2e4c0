import { destinations } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { encryptSecret } from "@/lib/crypto/secret-box";
import { NotFoundError, ValidationError } from "@/lib/errors";
import { parseInput } from "@/lib/validation";
import { destinationChangeDetails } from "./destination-audit-details";
import { checkedAlertChannelIds } from "./alert-channel-ids";
import { assertUrlFitsType, assertValidFilter, resumeResets, UpdateDestinationInput } from "./destination-input";
import { getDestinationRowOrThrow, namedDestination } from "./get-destination-or-throw";
import { presentDestination, type DestinationView } from "./present-destination";

/** Wakes what an endpoint's destinations hold parked: lib/delivery/resume-endpoint-deliveries.ts, passed in by the caller. */
export type ResumeEndpointDeliveries = (args: { ctx: Ctx; input: { endpointId: string } }) => Promise<unknown>;

/**
 * Changes the fields given, the default destination's too (they are its endpoint's destinationUrl, paused,
 * maxAttempts, retryBaseSeconds, timeoutMs and outbound secret). A destination keeps its type. An unpause
 * calls `resume` after the commit: the caller passes resumeEndpointDeliveries (lib/delivery imports this
 * folder, so this folder may not import it). The caller forgets the endpoint's cached routing afterwards.
 */
export async function updateDestination({ ctx, input, resume }: {
  ctx: Ctx;
  input: { endpointId: string; id: string; changes: unknown };
  resume: ResumeEndpointDeliveries;
}): Promise<DestinationView> {
  const changes = parseInput(UpdateDestinationInput, input.changes);
  assertValidFilter(changes.filter);
  const current = await getDestinationRowOrThrow({ ctx, input });
  // Its deliveries are claimed, attempted or leased by its type: a change of type is a new destination.
  if (changes.type !== undefined && changes.type !== current.type) {
    throw new ValidationError(`type: a destination's type cannot be changed (this one is ${current.type}); add a ${changes.type} destination instead.`);
  }
  await assertUrlFitsType(current.type, changes.url, { required: false });
  const { name, url, filter, rateLimit, orderingKey, paused, maxAttempts, retryBaseSeconds, timeoutMs, outboundSecret, autoPause } = changes;
  const alertChannelIds = await checkedAlertChannelIds(ctx, changes.alertChannelIds);
  // drizzle leaves out of an update the fields that are undefined.
  const set = {
    name, url: current.type === "http" ? url : undefined, filter, orderingKey, paused, maxAttempts, retryBaseSeconds, timeoutMs,
    ratePerSecond: rateLimit === undefined ? undefined : (rateLimit?.perSecond ?? null),
    rateBurst: rateLimit === undefined ? undefined : (rateLimit?.burst ?? null),
    // A new limit starts with a full bucket (its burst), as a new destination's does.
    rateTokens: rateLimit === undefined ? undefined : null,
    rateRefilledAt: rateLimit === undefined ? undefined : null,
    outboundSecretEncrypted: outboundSecret === undefined ? undefined : outboundSecret ? encryptSecret(outboundSecret) : null,
    alertChannelIds,
    autoPauseFailures: autoPause === undefined ? undefined : (autoPause?.consecutiveFailures ?? null),
    autoPauseMinutes: autoPause === undefined ? undefined : (autoPause?.minutes ?? null),
    deadThreshold: changes.deadThreshold,
    deadWindowMinutes: changes.deadWindowMinutes,
    alertPendingAgeSeconds: changes.alertPendingAgeSeconds,
    ...resumeResets(paused),
  };
  const row = await withTransaction(ctx, async (ctx) => {
    const where = namedDestination(ctx.organizationId, { endpointId: current.endpointId, id: current.id });
    // Written only when a field is given, so an empty PATCH takes no lock the delivery engine may be waiting on.
    const [updated] = Object.values(set).some((value) => value !== undefined)
      ? await ctx.db.update(destinations).set({ ...set, updatedAt: new Date() }).where(where).returning()
      : await ctx.db.select().from(destinations).where(where);
    if (!updated) throw new NotFoundError("Destination"); // deleted since it was read
    await recordAudit(ctx, { action: "destination.updated", target: { type: "destination", id: current.id }, details: destinationChangeDetails(current, updated) });
    return updated;
  });
  // After the commit (see resumeEndpointDeliveries), on every unpause asked for, not only when the row read
  // before was paused: a pause committed in between would leave the backlog asleep.
  if (changes.paused === false && row.paused === false) await resume({ ctx, input: { endpointId: row.endpointId } });
  return presentDestination(row);
}
