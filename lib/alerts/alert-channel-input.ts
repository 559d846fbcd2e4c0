// What an alert channel is made and changed with (API.md "Alerts"), and the checks of its target by type:
// an address, a Slack incoming-webhook URL, an HTTPS URL for signed events, or a PagerDuty routing key. URLs
// pass the destinations' SSRF rules; plain http only where private destinations are allowed (self-hosting, tests).
import { z } from "zod";
import { ALERT_CHANNEL_TYPES, type AlertChannelType } from "@/db/schema";
import { ValidationError } from "@/lib/errors";
import { assertDestinationAllowed, privateDestinationsAllowed } from "@/lib/net/destination-guard";

/** Per organization: each channel may hold one worker slot while it is being sent to (lib/queue/job-registry.ts). */
export const MAX_ALERT_CHANNELS = 20;

const name = z.string().trim().min(1, "name must not be empty").max(200);
const target = z.string().trim().min(1, "target must not be empty").max(2000);

export const CreateAlertChannelInput = z.strictObject({ name, type: z.enum(ALERT_CHANNEL_TYPES), target });
/** A channel keeps its type; `type` is accepted when it names the current one, so a client may send back what it read. */
export const UpdateAlertChannelInput = z.strictObject({ name: name.optional(), type: z.enum(ALERT_CHANNEL_TYPES).optional(), target: target.optional() });

const EMAIL = z.email();
const ROUTING_KEY = /^[A-Za-z0-9_-]{8,128}$/;

/** The target as stored, or a 400 naming what is wrong with it for this type. */
export async function checkedTarget(type: AlertChannelType, raw: string): Promise<string> {
  if (type === "email") {
    if (!EMAIL.safeParse(raw).success) throw new ValidationError("target: an email channel's target must be an email address.");
    return raw.toLowerCase();
  }
  if (type === "pagerduty") {
    if (!ROUTING_KEY.test(raw)) throw new ValidationError("target: a pagerduty channel's target must be an Events API v2 routing (integration) key.");
    return raw;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError(`target: a ${type} channel's target must be an absolute https URL.`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && privateDestinationsAllowed())) {
    throw new ValidationError(`target: a ${type} channel's target must be an https URL.`);
  }
  await assertDestinationAllowed(raw, "target");
  return raw;
}

/** Slack URLs and routing keys are credentials: stored encrypted, shown by their end only. */
export function isSecretTarget(type: AlertChannelType): boolean {
  return type === "slack" || type === "pagerduty";
}

export function maskedTarget(type: AlertChannelType, target: string): string {
  if (!isSecretTarget(type)) return target;
  if (type === "slack") {
    const url = new URL(target);
    return `${url.protocol}//${url.host}/…${target.slice(-4)}`;
  }
  return `…${target.slice(-4)}`;
}
