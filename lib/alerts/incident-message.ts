// What a notification tells, stored on it (alert_notifications.message) when it is decided, so a retry tells
// the same thing: the words every alert has (render-alert-mail.ts alertParts) and the incident's facts.
import type { IncidentKind, NotificationEvent } from "@/db/schema";
import { alertParts, type AlertMessage } from "./render-alert-mail";

export interface IncidentFacts {
  id: string;
  kind: IncidentKind;
  status: "open" | "resolved";
  openedAt: string;
  resolvedAt: string | null;
  endpoint: { id: string; name: string };
  destination: { id: string; name: string } | null;
}

export interface IncidentMessage {
  /** One line, without the mail's "[Webhook Inbox]" prefix. */
  summary: string;
  text: string;
  facts: [string, string][];
  link: { label: string; href: string };
  /** null for a channel's test. */
  incident: IncidentFacts | null;
}

export function incidentMessage(message: AlertMessage, incident: Omit<IncidentFacts, "endpoint">): IncidentMessage {
  const parts = alertParts(message);
  return {
    summary: parts.subject.replace(/^\[Webhook Inbox\] /, ""),
    text: parts.lead,
    facts: parts.facts,
    link: parts.link,
    incident: { ...incident, endpoint: { id: message.endpoint.id, name: message.endpoint.name } },
  };
}

export function testMessage(channel: { name: string }, dashboardUrl: string): IncidentMessage {
  return {
    summary: `Test notification for alert channel “${channel.name}”`,
    text: "This is a test from Webhook Inbox: incidents of the endpoints and destinations that name this channel will be told here.",
    facts: [],
    link: { label: "Incidents", href: `${dashboardUrl}/incidents` },
    incident: null,
  };
}

/** The event a webhook channel receives as `type`. */
export function webhookEventType(event: NotificationEvent): string {
  return event === "test" ? "test" : `incident.${event}`;
}
