// The request every bench sends: a unique ~1 KB Standard Webhooks request, signed just now.
import type { Webhook } from "standardwebhooks";

export function signedWebhook(webhook: Webhook, id: string, type = "bench.event"): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ type, id, pad: "x".repeat(900) });
  const now = new Date();
  return {
    body,
    headers: {
      "content-type": "application/json", "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": webhook.sign(id, now, body),
    },
  };
}
