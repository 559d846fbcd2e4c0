// The words of every alert mail, plain text and simple HTML, from facts the evaluator gathered.
import { config } from "@/lib/config/config";
import type { AlertEndpoint } from "./alert-endpoint";
import { ALERT_TIMING, OPEN_COUNT_CAP } from "./alert-settings";
import { formatDuration } from "./format-duration";

type Endpoint = Pick<AlertEndpoint, "id" | "name" | "paused">;

export type AlertMessage =
  | {
      kind: "pending_age_opened" | "pending_age_reminder";
      endpoint: Endpoint;
      ageSeconds: number;
      thresholdSeconds: number;
      openCount: number;
      /** When the delivery waiting longest began to wait: its receipt, or its latest replay. */
      oldestPendingSince: Date;
      lastError: string | null;
      openedAt: Date;
    }
  | {
      kind: "pending_age_resolved";
      endpoint: Endpoint;
      ageSeconds: number;
      thresholdSeconds: number;
      peakAgeSeconds: number;
      openedAt: Date;
      resolvedAt: Date;
      lastError: string | null;
    }
  | { kind: "dead_deliveries"; endpoint: Endpoint; newCount: number; totalCount: number; lastError: string | null; openedAt: Date }
  | { kind: "dead_deliveries_resolved"; endpoint: Endpoint; totalCount: number; openedAt: Date; resolvedAt: Date }
  | {
      kind: "destination_auto_paused";
      endpoint: Endpoint;
      destination: { id: string; name: string };
      failures: number;
      /** When the first of the failed attempts in a row started. */
      failingSince: Date;
      lastError: string | null;
      openedAt: Date;
    }
  | { kind: "destination_resumed"; endpoint: Endpoint; destination: { id: string; name: string }; openedAt: Date; resolvedAt: Date }
  | { kind: "deleted"; endpoint: Endpoint; destination: { id: string; name: string } | null; openedAt: Date; resolvedAt: Date };

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export function endpointLink(endpointId: string): string {
  return `${config().APP_URL}/endpoints/${encodeURIComponent(endpointId)}`;
}

export function deliveriesLink(endpointId: string, status: "pending" | "dead"): string {
  return `${config().APP_URL}/deliveries?endpointId=${encodeURIComponent(endpointId)}&status=${status}`;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const utc = (date: Date) => `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
const count = (n: number) => (n > OPEN_COUNT_CAP ? `${OPEN_COUNT_CAP}+` : String(n));
const deliveriesCount = (n: number) => `${n} ${n === 1 ? "delivery" : "deliveries"}`;
const errorText = (lastError: string | null, none: string) => (lastError ? lastError.replace(/\s+/g, " ").slice(0, 500) : none);

export interface Parts {
  subject: string;
  lead: string;
  facts: [string, string][];
  link: { label: string; href: string };
  footer: string;
}

/** What every alert says, whatever carries it: mail (below), Slack, a webhook event, PagerDuty (incident-message.ts). */
export function alertParts(message: AlertMessage): Parts {
  const { endpoint } = message;
  const name = `“${endpoint.name}”`;
  const span = (from: Date, to: Date) => `${utc(from)} to ${utc(to)} (${formatDuration((to.getTime() - from.getTime()) / 1000)})`;
  if (message.kind === "destination_auto_paused") {
    return {
      subject: `[Webhook Inbox] Paused: ${endpoint.name} → ${message.destination.name} after ${message.failures} failed attempts`,
      lead: `Destination “${message.destination.name}” of endpoint ${name} was paused automatically: its last ${message.failures} attempts failed, since ${utc(message.failingSince)}. What arrives meanwhile waits, pending; resume it to deliver, oldest first.`,
      facts: [
        ["Failed in a row", String(message.failures)],
        ["Failing since", utc(message.failingSince)],
        ["Last error", errorText(message.lastError, "none recorded")],
      ],
      link: { label: "Resume it on the endpoint's page", href: endpointLink(endpoint.id) },
      footer: "You will get one more message when it is resumed.",
    };
  }
  if (message.kind === "deleted") {
    const what = message.destination ? `Destination “${message.destination.name}” of endpoint ${name}` : `Endpoint ${name}`;
    return {
      subject: `[Webhook Inbox] Closed: ${message.destination ? `${endpoint.name} → ${message.destination.name}` : endpoint.name} was deleted`,
      lead: `${what} was deleted; its open incident is closed.`,
      facts: [["Open", span(message.openedAt, message.resolvedAt)]],
      link: { label: "Incidents", href: `${config().APP_URL}/incidents` },
      footer: "This incident is resolved.",
    };
  }
  if (message.kind === "destination_resumed") {
    return {
      subject: `[Webhook Inbox] Resumed: ${endpoint.name} → ${message.destination.name}`,
      lead: `Destination “${message.destination.name}” of endpoint ${name} was resumed; what waited is delivered, oldest first.`,
      facts: [["Paused", span(message.openedAt, message.resolvedAt)]],
      link: { label: "The endpoint", href: endpointLink(endpoint.id) },
      footer: "This incident is resolved.",
    };
  }
  if (message.kind === "dead_deliveries_resolved") {
    return {
      subject: `[Webhook Inbox] Recovered: no more dead deliveries on ${endpoint.name}`,
      lead: `No delivery of endpoint ${name} has gone dead for ${formatDuration(ALERT_TIMING.deadQuietMs / 1000)}.`,
      facts: [
        ["Went dead during the incident", String(message.totalCount)],
        ["Incident", span(message.openedAt, message.resolvedAt)],
      ],
      link: { label: "Dead deliveries (kept; replay them)", href: deliveriesLink(endpoint.id, "dead") },
      footer: "This incident is resolved.",
    };
  }
  const pausedNote = endpoint.paused ? " The endpoint is paused: its deliveries wait until it is resumed." : "";
  if (message.kind === "pending_age_resolved") {
    return {
      subject: `[Webhook Inbox] Recovered: ${endpoint.name} is below its ${formatDuration(message.thresholdSeconds)} threshold`,
      lead: `Endpoint ${name} has caught up: no delivery has been waiting longer than ${formatDuration(message.thresholdSeconds)}.`,
      facts: [
        ["Oldest waiting now", message.ageSeconds > 0 ? formatDuration(message.ageSeconds) : "nothing is waiting"],
        ["Worst age seen", formatDuration(message.peakAgeSeconds)],
        ["Incident", `${utc(message.openedAt)} to ${utc(message.resolvedAt)} (${formatDuration((message.resolvedAt.getTime() - message.openedAt.getTime()) / 1000)})`],
        ["Last error", errorText(message.lastError, "none recorded")],
      ],
      link: { label: "Deliveries still waiting", href: deliveriesLink(endpoint.id, "pending") },
      footer: "This incident is resolved; a new one opens, with a new mail, if deliveries wait too long again.",
    };
  }
  if (message.kind === "dead_deliveries") {
    return {
      subject: `[Webhook Inbox] ${endpoint.name}: ${deliveriesCount(message.newCount)} went dead`,
      lead: `${deliveriesCount(message.newCount)} of endpoint ${name} went dead: no more automatic attempts will be made for them.`,
      facts: [
        ["Went dead", message.newCount === message.totalCount ? String(message.newCount) : `${message.newCount} since the last mail (${message.totalCount} since ${utc(message.openedAt)})`],
        ["Last error", errorText(message.lastError, "none recorded")],
      ],
      link: { label: "Dead deliveries (kept; replay them once the destination is fixed)", href: deliveriesLink(endpoint.id, "dead") },
      footer: `You get at most one such mail per endpoint every ${formatDuration(ALERT_TIMING.deadMailIntervalMs / 1000)}.`,
    };
  }
  const reminder = message.kind === "pending_age_reminder";
  return {
    subject: `[Webhook Inbox] ${reminder ? "Still waiting: " : ""}${endpoint.name}: a delivery has waited ${formatDuration(message.ageSeconds)} (threshold ${formatDuration(message.thresholdSeconds)})`,
    lead: `Endpoint ${name} has a delivery waiting for ${formatDuration(message.ageSeconds)}, longer than its alert threshold of ${formatDuration(message.thresholdSeconds)}.${pausedNote}`,
    facts: [
      ["Oldest waiting delivery", `waiting ${formatDuration(message.ageSeconds)}, since ${utc(message.oldestPendingSince)} (its receipt or its latest replay)`],
      ["Waiting (pending or delivering)", count(message.openCount)],
      ["Last error", errorText(message.lastError, "none recorded: no attempt has failed yet (is the worker running?)")],
      ["Incident opened", utc(message.openedAt)],
    ],
    link: { label: "Waiting deliveries", href: deliveriesLink(endpoint.id, "pending") },
    footer: `You will get one more mail when the backlog drains below the threshold${reminder ? "" : `, and a reminder every ${formatDuration(ALERT_TIMING.reminderAfterMs / 1000)} while it does not`}.`,
  };
}

export function renderAlertMail(message: AlertMessage): RenderedMail {
  const p = alertParts(message);
  const text = [p.lead, "", ...p.facts.map(([k, v]) => `${k}: ${v}`), "", `${p.link.label}: ${p.link.href}`, "", p.footer, ""].join("\n");
  const rows = p.facts
    .map(([k, v]) => `<tr><th align="left" style="padding:2px 12px 2px 0;color:#475569">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join("");
  const html = `<!doctype html><html><body style="font-family:sans-serif;font-size:14px;color:#0f172a">
<p>${escapeHtml(p.lead)}</p>
<table>${rows}</table>
<p><a href="${escapeHtml(p.link.href)}">${escapeHtml(p.link.label)}</a></p>
<p style="color:#64748b">${escapeHtml(p.footer)}</p>
</body></html>`;
  return { subject: p.subject.replace(/[\r\n]+/g, " "), text, html };
}
