// The request each kind of alert channel receives, from a stored notification (README "Alerts" documents the
// webhook event): a Slack Block Kit message, a Standard Webhooks–signed JSON event, a PagerDuty Events v2
// trigger or resolve keyed by the incident id (so the resolve closes what the trigger opened).
import { Webhook } from "standardwebhooks";
import type { NotificationEvent } from "@/db/schema";
import { webhookEventType, type IncidentMessage } from "./incident-message";

export interface ChannelRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function slackRequest(url: string, message: IncidentMessage, event: NotificationEvent): ChannelRequest {
  const icon = event === "resolved" ? ":white_check_mark:" : event === "test" ? ":wave:" : ":rotating_light:";
  const incident = message.incident;
  const where = incident
    ? [`*Endpoint*\n${incident.endpoint.name}`, ...(incident.destination ? [`*Destination*\n${incident.destination.name}`] : []), `*Since*\n<!date^${Math.floor(Date.parse(incident.openedAt) / 1000)}^{date_short_pretty} {time}|${incident.openedAt}>`]
    : [];
  const fields = [...where, ...message.facts.map(([k, v]) => `*${k}*\n${v}`)].slice(0, 10).map((text) => ({ type: "mrkdwn", text: clip(text, 2000) }));
  const blocks = [
    { type: "header", text: { type: "plain_text", text: clip(message.summary, 150), emoji: true } },
    { type: "section", text: { type: "mrkdwn", text: `${icon} ${clip(message.text, 2900)}` } },
    ...(fields.length ? [{ type: "section", fields }] : []),
    { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: clip(message.link.label, 75) }, url: message.link.href }] },
  ];
  return { url, body: JSON.stringify({ text: message.summary, blocks }), headers: {} };
}

/** The event: `{id, type, createdAt, data: {summary, text, facts, url, incident}}`, signed with the channel's secret. */
export function webhookRequest(url: string, secret: string, notificationId: string, message: IncidentMessage, event: NotificationEvent, at: Date): ChannelRequest {
  const body = JSON.stringify({
    id: notificationId,
    type: webhookEventType(event),
    createdAt: at.toISOString(),
    data: { summary: message.summary, text: message.text, facts: Object.fromEntries(message.facts), url: message.link.href, incident: message.incident },
  });
  const signature = new Webhook(secret).sign(notificationId, at, body);
  return {
    url,
    body,
    headers: { "webhook-id": notificationId, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": signature },
  };
}

export function pagerDutyRequest(eventsUrl: string, routingKey: string, notificationId: string, message: IncidentMessage, event: NotificationEvent): ChannelRequest {
  const incident = message.incident;
  const dedupKey = incident ? incident.id : `test:${notificationId}`;
  const body =
    event === "resolved"
      ? { routing_key: routingKey, event_action: "resolve", dedup_key: dedupKey }
      : {
          routing_key: routingKey,
          event_action: "trigger",
          dedup_key: dedupKey,
          payload: {
            summary: clip(message.summary, 1024),
            source: incident ? (incident.destination ? `${incident.endpoint.name} → ${incident.destination.name}` : incident.endpoint.name) : "webhook-inbox",
            severity: event === "test" ? "info" : "error",
            timestamp: incident?.openedAt ?? new Date().toISOString(),
            component: incident?.endpoint.id,
            class: incident?.kind,
            custom_details: { text: message.text, ...Object.fromEntries(message.facts) },
          },
          links: [{ href: message.link.href, text: message.link.label }],
        };
  return { url: eventsUrl, body: JSON.stringify(body), headers: {} };
}
