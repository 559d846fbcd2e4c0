import { z } from "zod";
import { AlertChannelIdsInput } from "@/lib/destinations/alert-channel-ids";
import { AutoPauseInput, DEAD_ALERT_FIELDS, DESTINATION_DEFAULTS, DESTINATION_FIELDS } from "@/lib/destinations/destination-input";
import { PROVIDERS } from "@/lib/signatures";

export const ENDPOINT_DEFAULTS = {
  ...DESTINATION_DEFAULTS,
  maxBodyBytes: 1_048_576,
  toleranceSeconds: 300,
} as const;

/** Providers whose secrets we may generate (whsec_…); the others are issued by the provider. */
export const GENERATES_SECRET = new Set(["standard-webhooks", "svix"]);

export const GenericHmacInput = z.object({
  header: z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9-]+$/, "header must be a header name"),
  algorithm: z.enum(["sha256", "sha1"]).default("sha256"),
  encoding: z.enum(["hex", "base64"]).default("hex"),
  prefix: z.string().max(50).nullish(),
  idHeader: z.string().trim().max(100).regex(/^[A-Za-z0-9-]+$/).nullish(),
});

const secret = z.string().trim().min(1, "secret must not be empty").max(500);
/** Meta's per-endpoint verify token (its GET subscription handshake); null removes it. */
const verifyToken = z.string().trim().min(1, "verifyToken must not be empty").max(500).nullable();

// The default destination's fields (destinationUrl, paused, retries, timeout, outbound secret) and the name are
// declared with the destinations' (lib/destinations/destination-input.ts): one set of bounds for both APIs.
const settings = {
  name: DESTINATION_FIELDS.name,
  destinationUrl: DESTINATION_FIELDS.url,
  maxAttempts: DESTINATION_FIELDS.maxAttempts,
  retryBaseSeconds: DESTINATION_FIELDS.retryBaseSeconds,
  timeoutMs: DESTINATION_FIELDS.timeoutMs,
  maxBodyBytes: z.number().int().min(1).max(26_214_400),
  toleranceSeconds: z.number().int().min(1).max(86_400),
  paused: DESTINATION_FIELDS.paused,
  alertPendingAgeSeconds: z.number().int().min(1).max(30 * 86_400).nullable(),
  alertEmail: z.email("alertEmail must be an email address").nullable(),
  genericHmac: GenericHmacInput.nullable(),
  outboundSecret: DESTINATION_FIELDS.outboundSecret,
  alertChannelIds: AlertChannelIdsInput,
  /** The default destination's circuit breaker. */
  autoPause: AutoPauseInput.nullable(),
  /** The default destination's own dead-delivery alert. */
  ...DEAD_ALERT_FIELDS,
};

export const CreateEndpointInput = z.strictObject({
  name: settings.name,
  provider: z.enum(PROVIDERS),
  secret: secret.optional(),
  verifyToken: verifyToken.optional(),
  destinationUrl: settings.destinationUrl,
  maxAttempts: settings.maxAttempts.default(ENDPOINT_DEFAULTS.maxAttempts),
  retryBaseSeconds: settings.retryBaseSeconds.default(ENDPOINT_DEFAULTS.retryBaseSeconds),
  timeoutMs: settings.timeoutMs.default(ENDPOINT_DEFAULTS.timeoutMs),
  maxBodyBytes: settings.maxBodyBytes.default(ENDPOINT_DEFAULTS.maxBodyBytes),
  toleranceSeconds: settings.toleranceSeconds.default(ENDPOINT_DEFAULTS.toleranceSeconds),
  paused: settings.paused.default(false),
  alertPendingAgeSeconds: settings.alertPendingAgeSeconds.optional(),
  alertEmail: settings.alertEmail.optional(),
  genericHmac: settings.genericHmac.optional(),
  outboundSecret: settings.outboundSecret.optional(),
  alertChannelIds: settings.alertChannelIds.optional(),
  autoPause: settings.autoPause.optional(),
  deadThreshold: settings.deadThreshold.optional(),
  deadWindowMinutes: settings.deadWindowMinutes.optional(),
});
export type CreateEndpointInput = z.input<typeof CreateEndpointInput>;

export const UpdateEndpointInput = z.strictObject({
  name: settings.name.optional(),
  provider: z.enum(PROVIDERS).optional(),
  secret: secret.optional(),
  verifyToken: verifyToken.optional(),
  destinationUrl: settings.destinationUrl.optional(),
  maxAttempts: settings.maxAttempts.optional(),
  retryBaseSeconds: settings.retryBaseSeconds.optional(),
  timeoutMs: settings.timeoutMs.optional(),
  maxBodyBytes: settings.maxBodyBytes.optional(),
  toleranceSeconds: settings.toleranceSeconds.optional(),
  paused: settings.paused.optional(),
  alertPendingAgeSeconds: settings.alertPendingAgeSeconds.optional(),
  alertEmail: settings.alertEmail.optional(),
  genericHmac: settings.genericHmac.optional(),
  outboundSecret: settings.outboundSecret.optional(),
  alertChannelIds: settings.alertChannelIds.optional(),
  autoPause: settings.autoPause.optional(),
  deadThreshold: settings.deadThreshold.optional(),
  deadWindowMinutes: settings.deadWindowMinutes.optional(),
});
export type UpdateEndpointInput = z.input<typeof UpdateEndpointInput>;
