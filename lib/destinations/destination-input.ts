// What a destination is made and changed with (API.md "Destinations"). The fields an endpoint shares with its
// default destination (name, url, paused, retries, timeout, outbound secret) are declared here once, and
// lib/endpoints/endpoint-input.ts takes them from here, so both APIs hold the same bounds.
import { encryptSecret } from "@/lib/crypto/secret-box";
import { z } from "zod";
import { DESTINATION_TYPES, type DestinationType } from "@/db/schema";
import { InvalidFilterError, ValidationError } from "@/lib/errors";
import { assertDestinationAllowed } from "@/lib/net/destination-guard";
import { AlertChannelIdsInput } from "./alert-channel-ids";
import { compileFilter, type FilterMatch } from "./filter";

/** What a destination (an endpoint's default one included) gets when the field is not given. */
export const DESTINATION_DEFAULTS = { maxAttempts: 8, retryBaseSeconds: 5, timeoutMs: 15_000 } as const;

// What the signer can use: standardwebhooks strips an optional whsec_ and decodes padded standard
// base64 (it throws on anything else, so a bad secret killed every delivery with "cannot sign");
// the Standard Webhooks spec asks for a key of 24 to 64 bytes.
function isStandardWebhooksSecret(value: string): boolean {
  const encoded = value.startsWith("whsec_") ? value.slice("whsec_".length) : value;
  if (encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return false;
  const bytes = Buffer.from(encoded, "base64").length;
  return bytes >= 24 && bytes <= 64;
}

/** The fields an endpoint and its destinations share; a url is checked further by assertDestinationAllowed. */
export const DESTINATION_FIELDS = {
  name: z.string().trim().min(1, "name must not be empty").max(200),
  url: z.string().trim().max(2000),
  maxAttempts: z.number().int().min(1).max(50),
  retryBaseSeconds: z.number().int().min(1).max(3600),
  timeoutMs: z.number().int().min(100).max(30_000),
  paused: z.boolean(),
  /** null removes it. */
  outboundSecret: z
    .string()
    .trim()
    .max(500)
    .refine(isStandardWebhooksSecret, "outboundSecret must be a Standard Webhooks secret: whsec_ followed by the base64 of 24 to 64 bytes")
    .nullable(),
};

/** Deliveries started per second at most (fractions allowed: 0.5 is one every 2 s), and how many may start at once after a quiet spell. */
const RateLimitInput = z.strictObject({
  perSecond: z.number().gt(0, "rateLimit.perSecond must be greater than 0").max(10_000, "rateLimit.perSecond must be at most 10000"),
  burst: z.number().int("rateLimit.burst must be a whole number").min(1, "rateLimit.burst must be from 1 to 1000").max(1000, "rateLimit.burst must be from 1 to 1000").default(1),
});

/** The circuit breaker: paused once at least `consecutiveFailures` attempts in a row have failed over at least `minutes`. */
export const AutoPauseInput = z.strictObject({
  consecutiveFailures: z.number().int("autoPause.consecutiveFailures must be a whole number").min(1, "autoPause.consecutiveFailures must be from 1 to 10000").max(10_000, "autoPause.consecutiveFailures must be from 1 to 10000"),
  minutes: z.number().int("autoPause.minutes must be a whole number").min(0, "autoPause.minutes must be from 0 to 10080").max(10_080, "autoPause.minutes must be from 0 to 10080"),
});

/** A destination's own dead-delivery alert: an incident once `deadThreshold` went dead within `deadWindowMinutes`. */
export const DEAD_ALERT_FIELDS = {
  deadThreshold: z.number().int("deadThreshold must be a whole number").min(1, "deadThreshold must be from 1 to 10000").max(10_000, "deadThreshold must be from 1 to 10000").nullable(),
  deadWindowMinutes: z.number().int("deadWindowMinutes must be a whole number").min(1, "deadWindowMinutes must be from 1 to 1440").max(1440, "deadWindowMinutes must be from 1 to 1440"),
};
export const DEFAULT_DEAD_WINDOW_MINUTES = 60;
/** A destination's own pending-age alert, as an endpoint's alertPendingAgeSeconds (1 s to 30 days); null: its endpoint's. */
const AlertPendingAgeInput = z.number().int("alertPendingAgeSeconds must be a whole number")
  .min(1, "alertPendingAgeSeconds must be from 1 to 2592000").max(30 * 86_400, "alertPendingAgeSeconds must be from 1 to 2592000").nullable();

const INDEX = String.raw`\[\d{1,9}\]`;
const SEGMENT = String.raw`[A-Za-z0-9_-]+(?:${INDEX})*`;
/**
 * An ordering key: `$externalId`, or a dotted path into the JSON body, each segment a name of letters, digits,
 * `_` and `-` with optional `[n]` indexes after it (`data.items[0].id`); a body that is an array starts with
 * its index (`[0].id`).
 */
export const ORDERING_KEY_PATTERN = new RegExp(String.raw`^(?:\$externalId|(?:(?:${INDEX})+|${SEGMENT})(?:\.${SEGMENT})*)$`);
export const MAX_ORDERING_KEY_LENGTH = 200;
const ORDERING_KEY_RULE =
  "orderingKey must be null, $externalId, or a dotted path into the body such as data.object.id: segments of letters, " +
  `digits, _ and -, each may end in [n] indexes, at most ${MAX_ORDERING_KEY_LENGTH} characters`;
const OrderingKeyInput = z.string(ORDERING_KEY_RULE).max(MAX_ORDERING_KEY_LENGTH, ORDERING_KEY_RULE).regex(ORDERING_KEY_PATTERN, ORDERING_KEY_RULE);

// The filter is any JSON here: compileFilter checks it after the rest (assertValidFilter), as it has an error code of its own.
const FilterInput = z.unknown();

export const CreateDestinationInput = z.strictObject({
  name: DESTINATION_FIELDS.name,
  type: z.enum(DESTINATION_TYPES).default("http"),
  url: DESTINATION_FIELDS.url.nullable().optional(),
  filter: FilterInput.optional(),
  rateLimit: RateLimitInput.nullable().optional(),
  orderingKey: OrderingKeyInput.nullable().optional(),
  paused: DESTINATION_FIELDS.paused.default(false),
  maxAttempts: DESTINATION_FIELDS.maxAttempts.default(DESTINATION_DEFAULTS.maxAttempts),
  retryBaseSeconds: DESTINATION_FIELDS.retryBaseSeconds.default(DESTINATION_DEFAULTS.retryBaseSeconds),
  timeoutMs: DESTINATION_FIELDS.timeoutMs.default(DESTINATION_DEFAULTS.timeoutMs),
  outboundSecret: DESTINATION_FIELDS.outboundSecret.optional(),
  alertChannelIds: AlertChannelIdsInput.optional(),
  autoPause: AutoPauseInput.nullable().optional(),
  deadThreshold: DEAD_ALERT_FIELDS.deadThreshold.optional(),
  deadWindowMinutes: DEAD_ALERT_FIELDS.deadWindowMinutes.optional(),
  alertPendingAgeSeconds: AlertPendingAgeInput.optional(),
});
export type CreateDestinationInput = z.input<typeof CreateDestinationInput>;

/** Every field optional; null clears url (pull only), filter, rateLimit, orderingKey, outboundSecret, alertChannelIds and autoPause. */
export const UpdateDestinationInput = z.strictObject({
  name: DESTINATION_FIELDS.name.optional(),
  // Accepted when it names the current type, so a client may send back the object it read.
  type: z.enum(DESTINATION_TYPES).optional(),
  url: DESTINATION_FIELDS.url.nullable().optional(),
  filter: FilterInput.optional(),
  rateLimit: RateLimitInput.nullable().optional(),
  orderingKey: OrderingKeyInput.nullable().optional(),
  paused: DESTINATION_FIELDS.paused.optional(),
  maxAttempts: DESTINATION_FIELDS.maxAttempts.optional(),
  retryBaseSeconds: DESTINATION_FIELDS.retryBaseSeconds.optional(),
  timeoutMs: DESTINATION_FIELDS.timeoutMs.optional(),
  outboundSecret: DESTINATION_FIELDS.outboundSecret.optional(),
  alertChannelIds: AlertChannelIdsInput.optional(),
  autoPause: AutoPauseInput.nullable().optional(),
  deadThreshold: DEAD_ALERT_FIELDS.deadThreshold.optional(),
  deadWindowMinutes: DEAD_ALERT_FIELDS.deadWindowMinutes.optional(),
  alertPendingAgeSeconds: AlertPendingAgeInput.optional(),
});
export type UpdateDestinationInput = z.input<typeof UpdateDestinationInput>;

/** Refuses (400 invalid_filter) a filter compileFilter does not accept, naming the path of its first error from `filter`. */
export function assertValidFilter(filter: unknown): void {
  if (filter === undefined || filter === null) return;
  compileFilterOrThrow(filter);
}

/** compileFilter's match, or the 400 invalid_filter assertValidFilter throws. */
export function compileFilterOrThrow(filter: unknown): FilterMatch {
  const compiled = compileFilter(filter);
  if (compiled.ok) return compiled.match;
  const path = compiled.path === "" ? "filter" : compiled.path.startsWith("[") ? `filter${compiled.path}` : `filter.${compiled.path}`;
  throw new InvalidFilterError(`${path}: ${compiled.message}`);
}

/**
 * An http destination posts to its url, which must be there and pass the endpoint's guard (its form, and no
 * private or own address); a pull destination has none. `url`: as given (undefined: not given, on a PATCH).
 */
export async function assertUrlFitsType(type: DestinationType, url: string | null | undefined, { required }: { required: boolean }): Promise<void> {
  if (type === "pull") {
    if (typeof url === "string") throw new ValidationError("url: a pull destination has no url (its deliveries are pulled, API.md); leave it out or null.");
    return;
  }
  if (url === null || (url === undefined && required)) throw new ValidationError("url is required for an http destination.");
  if (url !== undefined) await assertDestinationAllowed(url, "url");
}

/** A destination's delivery settings as stored, from the fields an endpoint and a destination share: one mapping for both. */
export function storedDeliverySettings(input: { paused: boolean; maxAttempts: number; retryBaseSeconds: number; timeoutMs: number; outboundSecret?: string | null }) {
  return {
    paused: input.paused,
    maxAttempts: input.maxAttempts,
    retryBaseSeconds: input.retryBaseSeconds,
    timeoutMs: input.timeoutMs,
    outboundSecretEncrypted: input.outboundSecret ? encryptSecret(input.outboundSecret) : null,
  };
}

/** A resume (paused: false) also forgets the breaker's count and its pause (API.md "Automatic pause"). */
export function resumeResets(paused: boolean | undefined) {
  return paused === false ? { consecutiveFailures: 0, failingSince: null, autoPausedAt: null } : {};
}
