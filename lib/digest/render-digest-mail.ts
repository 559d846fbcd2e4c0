// The words of the daily digest, plain text and simple HTML (every name and error escaped), from its figures.
import { config } from "@/lib/config/config";
import { formatDuration } from "@/lib/alerts/format-duration";
import type { DigestDestination, DigestEndpoint, DigestFigures } from "./gather-digest-figures";

export interface RenderedDigest {
  subject: string;
  text: string;
  html: string;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** The dashboard's pages the digest links to. */
export const digestLinks = {
  overview: () => `${config().APP_URL}/overview`,
  endpoint: (endpointId: string) => `${config().APP_URL}/endpoints/${encodeURIComponent(endpointId)}`,
  dead: (endpointId: string) => `${config().APP_URL}/deliveries?endpointId=${encodeURIComponent(endpointId)}&status=dead`,
};

const utc = (date: Date) => `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
const n = (value: number) => value.toLocaleString("en-US");
const oneLine = (value: string) => value.replace(/\s+/g, " ").trim();

function countsLine(endpoint: DigestEndpoint): string {
  const oldest = endpoint.oldestPendingAgeSeconds > 0 ? formatDuration(endpoint.oldestPendingAgeSeconds) : "none waiting";
  return `received ${n(endpoint.received)} · delivered ${n(endpoint.delivered)} · dead ${n(endpoint.dead)} · filtered ${n(endpoint.filtered)} · oldest pending ${oldest}`;
}

function destinationLine(destination: DigestDestination): string {
  const age = destination.oldestPendingAgeSeconds;
  const oldest = age > 0 ? formatDuration(age) : "none waiting";
  return `Destination “${oneLine(destination.name)}”: received ${destination.received} · delivered ${destination.delivered} · dead ${destination.dead} · oldest pending ${oldest}`;
}

const errorLine = (error: { error: string; count: number }) => `${n(error.count)} × ${oneLine(error.error)}`;

export function renderDigestMail(input: { organizationName: string; figures: DigestFigures }): RenderedDigest {
  const { figures } = input;
  const organization = oneLine(input.organizationName);
  const window = `the 24 hours to ${utc(figures.to)}`;
  const lead = `Daily digest of ${organization}: ${window}. Counts are of the requests received in that window, as they stand now.`;
  const none = figures.endpoints.length === 0 ? "This organization has no endpoint yet." : null;
  const omitted = figures.omittedEndpoints > 0 ? `${n(figures.omittedEndpoints)} more endpoints are on the overview.` : null;
  const footer = "You get this mail once a day; an owner or admin changes or stops it in the organization's settings (PATCH /api/v1/organization {digest}).";

  const text = [lead, ""];
  if (none) text.push(none, "");
  for (const endpoint of figures.endpoints) {
    text.push(`Endpoint “${oneLine(endpoint.name)}”: ${countsLine(endpoint)}`);
    for (const destination of endpoint.destinations) {
      text.push(`  ${destinationLine(destination)}`);
      for (const error of destination.topErrors) text.push(`    ${errorLine(error)}`);
    }
    text.push(`  ${digestLinks.endpoint(endpoint.id)}`);
    if (endpoint.dead > 0) text.push(`  Dead deliveries: ${digestLinks.dead(endpoint.id)}`);
    text.push("");
  }
  if (omitted) text.push(omitted, "");
  text.push(`Overview: ${digestLinks.overview()}`, "", footer, "");

  const link = (href: string, label: string) => `<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>`;
  const sections = figures.endpoints.map((endpoint) => {
    const destinations = endpoint.destinations
      .map((destination) => {
        const errors = destination.topErrors.map((error) => `<li>${escapeHtml(errorLine(error))}</li>`).join("");
        return `<li>${escapeHtml(destinationLine(destination))}${errors ? `<ul>${errors}</ul>` : ""}</li>`;
      })
      .join("");
    const dead = endpoint.dead > 0 ? ` · ${link(digestLinks.dead(endpoint.id), "dead deliveries")}` : "";
    return `<h3 style="margin:16px 0 4px">${link(digestLinks.endpoint(endpoint.id), `Endpoint “${oneLine(endpoint.name)}”`)}</h3>
<p style="margin:0">${escapeHtml(countsLine(endpoint))}${dead}</p>
<ul style="margin:4px 0">${destinations}</ul>`;
  });
  const html = `<!doctype html><html><body style="font-family:sans-serif;font-size:14px;color:#0f172a">
<p>${escapeHtml(lead)}</p>
${none ? `<p>${escapeHtml(none)}</p>` : ""}${sections.join("\n")}
${omitted ? `<p>${escapeHtml(omitted)}</p>` : ""}
<p>${link(digestLinks.overview(), "Overview")}</p>
<p style="color:#64748b">${escapeHtml(footer)}</p>
</body></html>`;
  return { subject: `[Webhook Inbox] Daily digest: ${organization}, ${figures.to.toISOString().slice(0, 10)}`, text: text.join("\n"), html };
}
