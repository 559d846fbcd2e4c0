// What the REST API answers (API.md "REST API v1"), as the presenters write it (present-*.ts, the list verbs):
// the OpenAPI document's response schemas. Strict objects: a field a presenter adds without a word here fails the
// REST tests (test/api-response-check.ts), so the document cannot drift from the answers.
import { z } from "zod";
import { ALERT_CHANNEL_TYPES, DEAD_REASONS, DELIVERY_STATUSES, DESTINATION_TYPES } from "@/db/schema";
import { ROLES } from "@/lib/access/roles";
import { ACTOR_TYPES } from "@/lib/audit/audit-actions";
import { PROVIDERS } from "@/lib/signatures";

const time = z.iso.datetime().describe("ISO 8601, UTC");
const nullableTime = time.nullable();
const count = z.number().int().min(0);

/** Every error: `{error: {code, message}}` (lib/http/error-response.ts). */
export const ErrorBody = z.strictObject({
  error: z.strictObject({ code: z.string().describe("Stable, machine-readable: validation_error, not_found, forbidden, …"), message: z.string() }),
});

const GenericHmac = z.strictObject({
  header: z.string(),
  algorithm: z.enum(["sha256", "sha1"]),
  encoding: z.enum(["hex", "base64"]),
  prefix: z.string().nullish(),
  idHeader: z.string().nullish(),
});

const alertChannelIds = z.array(z.string()).describe("The alert channels (ach_…) its incidents are told on; empty: the default mail (a destination: its endpoint's)");
const deadThreshold = z.number().int().nullable().describe("Dead-delivery alert: an incident once this many went dead within deadWindowMinutes; null: none");
const deadWindowMinutes = z.number().int().nullable().describe("null when deadThreshold is");
const AutoPause = z
  .strictObject({ consecutiveFailures: z.number().int(), minutes: z.number().int() })
  .nullable()
  .describe("The circuit breaker: paused once every attempt for `minutes` failed, and at least consecutiveFailures in a row; null: off");

/** presentEndpoint: its destination fields are its default destination's; secrets never. */
export const Endpoint = z.strictObject({
  id: z.string(),
  name: z.string(),
  provider: z.enum(PROVIDERS),
  ingestUrl: z.string(),
  destinationUrl: z.string().nullable(),
  paused: z.boolean(),
  maxAttempts: z.number().int(),
  retryBaseSeconds: z.number().int(),
  timeoutMs: z.number().int(),
  maxBodyBytes: z.number().int(),
  toleranceSeconds: z.number().int(),
  alertPendingAgeSeconds: z.number().int().nullable(),
  alertEmail: z.string().nullable(),
  alertChannelIds,
  deadThreshold,
  deadWindowMinutes,
  autoPause: AutoPause,
  genericHmac: GenericHmac.nullable(),
  hasSecret: z.boolean(),
  awaitingSecret: z.boolean().describe("Created without the secret its provider issues: what arrives is refused 401 and quarantined until rotate-secret or PATCH sets it"),
  hasVerifyToken: z.boolean(),
  signsOutbound: z.boolean(),
  previousSecretValidUntil: nullableTime,
  createdAt: time,
});

/** POST /endpoints: the endpoint, and a secret we generated (returned this once). */
export const CreatedEndpoint = Endpoint.extend({ secret: z.string().optional() });

export const EndpointStats = z.strictObject({
  pending: count,
  delivering: count,
  delivered: count,
  dead: count,
  oldestPendingAgeSeconds: count,
  receivedLastHour: count,
  deliveredLastHour: count,
});

export const RotatedSecret = z.strictObject({
  secret: z.string().optional().describe("Only when the secret was generated (none given)"),
  previousSecretValidUntil: nullableTime.describe("null: there was no previous secret (the endpoint awaited its first)"),
});

export const QuarantinedRequest = z.strictObject({
  id: z.string(),
  endpointId: z.string(),
  receivedAt: time,
  reason: z.string().describe("invalid_signature, missing_signature or timestamp_out_of_tolerance"),
  sourceAddress: z.string().nullable().describe("The address the request came from"),
  sourceIp: z.string().nullable().describe("The same as sourceAddress (its former name)"),
  sizeBytes: count,
  eventType: z.string().optional().describe("The event type it claims, when it could be read without the secret (unverified)"),
  externalId: z.string().optional().describe("The event id it claims, when it could be read without the secret (unverified)"),
});

export const Reverified = z.strictObject({ count, duplicates: count.optional().describe("Absent with ?dryRun=true") });

/** presentDestination: never its outbound secret, only whether it signs. */
export const Destination = z.strictObject({
  id: z.string(),
  endpointId: z.string(),
  name: z.string(),
  type: z.enum(DESTINATION_TYPES),
  url: z.string().nullable(),
  default: z.boolean(),
  filter: z.unknown().describe("The filter document, or null"),
  rateLimit: z.strictObject({ perSecond: z.number(), burst: z.number().int() }).nullable(),
  orderingKey: z.string().nullable(),
  paused: z.boolean(),
  maxAttempts: z.number().int(),
  retryBaseSeconds: z.number().int(),
  timeoutMs: z.number().int(),
  signsOutbound: z.boolean(),
  alertChannelIds,
  alertPendingAgeSeconds: z.number().int().nullable().describe("Its own pending-age alert; null: its endpoint's alertPendingAgeSeconds"),
  deadThreshold,
  deadWindowMinutes,
  autoPause: AutoPause,
  autoPaused: z
    .strictObject({ at: time, consecutiveFailures: count, failingSince: nullableTime })
    .nullable()
    .describe("While the circuit breaker holds it paused: since when, after how many failed attempts in a row, failing since when"),
  createdAt: time,
});

const DeliveryStatus = z.enum(DELIVERY_STATUSES);
const deadReason = z
  .enum(DEAD_REASONS)
  .nullable()
  .describe("Why it is dead: exhausted (attempts used up), rejected (a status the destination means as final) or buried (by a person or key); null unless dead");

/** One destination's part of a delivery (presentDestinationRow). */
export const DeliveryDestination = z.strictObject({
  destinationId: z.string(),
  name: z.string().nullable(),
  status: DeliveryStatus,
  attemptCount: count,
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  deadReason,
  nextAttemptAt: nullableTime,
  deliveredAt: nullableTime,
});

/** The list item (presentDeliverySummary): a stored request summed up over its destinations. */
export const DeliverySummary = z.strictObject({
  id: z.string(),
  endpointId: z.string(),
  externalId: z.string().nullable(),
  eventType: z.string().nullable(),
  status: DeliveryStatus,
  receivedAt: time,
  attemptCount: count,
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  deadReason: deadReason.describe("Why the request is dead (a failure before a burial when its destinations differ); null unless dead"),
  nextAttemptAt: nullableTime,
  deliveredAt: nullableTime,
  sizeBytes: count,
  test: z.boolean().describe("Sent with POST /endpoints/{id}/test-event, not received"),
  destinations: z.array(DeliveryDestination),
});

export const Attempt = z.strictObject({
  destinationId: z.string(),
  number: z.number().int().min(1),
  trigger: z.enum(["auto", "replay"]),
  startedAt: time,
  durationMs: z.number().int().nullable(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  responseBody: z.string().nullable(),
  requestHeaders: z.record(z.string(), z.string()).nullable()
    .describe("The headers the worker set on the request (x-inbox-*, webhook-*); the rest were the request's own `headers`, the body its `body`. Null before they were recorded, or when nothing was sent"),
  responseHeaders: z.record(z.string(), z.string()).nullable().describe("The answer's headers, the first 8 KiB; null when no answer came"),
});

/** presentDelivery: the item plus the request's headers and body, and every attempt. */
export const Delivery = DeliverySummary.extend({
  headers: z.record(z.string(), z.string()),
  body: z.string().describe("UTF-8 text, or base64 when bodyEncoding is base64"),
  bodyEncoding: z.enum(["utf8", "base64"]),
  attempts: z.array(Attempt),
});

export const Replayed = z.strictObject({ id: z.string(), status: z.enum(["pending", "filtered"]) });
export const Buried = z.strictObject({ id: z.string(), status: z.literal("dead") });
export const Counted = z.strictObject({ count });
export const TestEventSent = z.strictObject({ id: z.string().describe("The test delivery's id (dlv_…)") });

export const Organization = z.strictObject({
  id: z.string(),
  name: z.string(),
  retentionDays: z.number().int(),
  digest: z
    .strictObject({
      hourUtc: z.number().int().min(0).max(23),
      recipients: z.array(z.string()).nullable().describe("null: the organization's owners, as they are on the day"),
    })
    .nullable()
    .describe("The daily digest mail; null: off"),
  createdAt: time,
});

export const Member = z.strictObject({ userId: z.string(), email: z.string(), role: z.enum(ROLES), joinedAt: time });

/** presentInvitation: never its token. */
export const Invitation = z.strictObject({ id: z.string(), email: z.string(), role: z.enum(ROLES), expiresAt: time });

export const AuditEntry = z.strictObject({
  id: z.string(),
  at: time,
  action: z.string(),
  actor: z.strictObject({ type: z.enum(ACTOR_TYPES), id: z.string().nullable(), label: z.string().nullable() }),
  target: z.strictObject({ type: z.string(), id: z.string() }),
  details: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
});

/** presentAlertChannel: a Slack URL or a routing key only masked; a webhook channel's secret never (but at creation). */
export const AlertChannel = z.strictObject({
  id: z.string(),
  name: z.string(),
  type: z.enum(ALERT_CHANNEL_TYPES),
  target: z.string().describe("The address or URL; a Slack URL or a PagerDuty routing key only by its end"),
  awaitingConfirmation: z.boolean().describe("An email channel whose address has not been confirmed yet: its alerts go to the owners meanwhile"),
  createdAt: time,
  updatedAt: time,
});

/** POST /alert-channels: the channel, and a webhook channel's signing secret (returned this once). */
export const CreatedAlertChannel = AlertChannel.extend({ secret: z.string().optional().describe("A webhook channel's signing secret (whsec_…), shown this once") });

export const AlertChannelTest = z.strictObject({ id: z.string().describe("The test notification's id (ntf_…)") });

/** A list: `{data, nextCursor}`; nextCursor null on the last page. */
export function page<T extends z.ZodType>(item: T) {
  return z.strictObject({ data: z.array(item), nextCursor: z.string().nullable() });
}
