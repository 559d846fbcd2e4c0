// The registry of signature schemes: one entry per provider, listed by hand so adding a provider
// is a visible change here. Its keys are the provider ids (Provider, PROVIDERS), in the order the
// dashboard lists them.
import { calendly } from "@/lib/signatures/calendly";
import { clerk } from "@/lib/signatures/clerk";
import { discord } from "@/lib/signatures/discord";
import { genericHmac } from "@/lib/signatures/generic-hmac";
import { github } from "@/lib/signatures/github";
import { gitlab } from "@/lib/signatures/gitlab";
import { hubspot } from "@/lib/signatures/hubspot";
import { intercom } from "@/lib/signatures/intercom";
import { lemonsqueezy } from "@/lib/signatures/lemonsqueezy";
import { linear } from "@/lib/signatures/linear";
import { mailgun } from "@/lib/signatures/mailgun";
import { meta } from "@/lib/signatures/meta";
import { none } from "@/lib/signatures/none";
import { paddle } from "@/lib/signatures/paddle";
import { pagerduty } from "@/lib/signatures/pagerduty";
import { resend } from "@/lib/signatures/resend";
import { sendgrid } from "@/lib/signatures/sendgrid";
import { sentry } from "@/lib/signatures/sentry";
import { shopify } from "@/lib/signatures/shopify";
import { slack } from "@/lib/signatures/slack";
import { square } from "@/lib/signatures/square";
import { standardWebhooks } from "@/lib/signatures/standard-webhooks";
import { stripe } from "@/lib/signatures/stripe";
import { svix } from "@/lib/signatures/svix";
import { twilio } from "@/lib/signatures/twilio";
import { twitch } from "@/lib/signatures/twitch";
import { typeform } from "@/lib/signatures/typeform";
import { vercel } from "@/lib/signatures/vercel";
import { woocommerce } from "@/lib/signatures/woocommerce";
import { zoom } from "@/lib/signatures/zoom";
import type { GetHandshakeInput, HandshakeAnswer, IdentifyInput, RequestIdentity, SignatureVerifier, VerifiedRequest, VerifyInput } from "@/lib/signatures/types";

export const verifiers = {
  "standard-webhooks": standardWebhooks,
  svix,
  stripe,
  github,
  shopify,
  slack,
  twilio,
  paddle,
  linear,
  zoom,
  discord,
  sendgrid,
  square,
  mailgun,
  hubspot,
  typeform,
  intercom,
  meta,
  twitch,
  calendly,
  gitlab,
  pagerduty,
  vercel,
  sentry,
  lemonsqueezy,
  woocommerce,
  clerk,
  resend,
  "generic-hmac": genericHmac,
  none,
} satisfies Record<string, SignatureVerifier>;

export type Provider = keyof typeof verifiers;
export const PROVIDERS = Object.keys(verifiers) as [Provider, ...Provider[]];

function verifierFor(provider: Provider): SignatureVerifier {
  // Own properties only: a provider name read from the database must not reach Object.prototype.
  if (!Object.hasOwn(verifiers, provider)) throw new Error(`Unknown signature provider "${provider}".`);
  return verifiers[provider] as SignatureVerifier;
}

/** Verifies `input` under `provider`'s scheme. Throws SignatureError (401) when it does not prove its sender. */
export function verifySignature(provider: Provider, input: VerifyInput): VerifiedRequest {
  return verifierFor(provider).verify(input);
}

/**
 * The event id and type a request claims under `provider`'s scheme, read without the secret (a refused request's,
 * for its quarantine row); nulls when the provider says nothing readable. Never throws: the request is untrusted.
 */
export function identifyRequest(provider: Provider, input: IdentifyInput): RequestIdentity {
  try {
    return verifierFor(provider).identify?.(input) ?? { externalId: null, eventType: null };
  } catch {
    return { externalId: null, eventType: null };
  }
}

/** Answers `provider`'s GET handshake; null when it has none or this GET is not one (405). */
export function answerGetHandshake(provider: Provider, input: GetHandshakeInput): HandshakeAnswer | null {
  return verifierFor(provider).answerGet?.(input) ?? null;
}

/** Why `secret` can never verify for `provider`, or null. */
export function secretProblem(provider: Provider, secret: string): string | null {
  return verifierFor(provider).secretProblem?.(secret) ?? null;
}

/** Whether `provider` takes a per-endpoint verify token (Meta). */
export function takesVerifyToken(provider: Provider): boolean {
  return verifierFor(provider).verifyTokenHint !== undefined;
}

/** What the create-endpoint form shows for each provider. */
export interface ProviderGuide {
  id: Provider;
  displayName: string;
  secretLabel: string;
  setupHint: string;
  verifyTokenHint: string | null;
}

export function providerGuides(): ProviderGuide[] {
  return PROVIDERS.map((id) => {
    const { displayName, secretLabel, setupHint, verifyTokenHint } = verifierFor(id);
    return { id, displayName, secretLabel, setupHint, verifyTokenHint: verifyTokenHint ?? null };
  });
}
