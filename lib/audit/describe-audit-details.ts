// An entry's details as short lines for people (the dashboard's Audit log page). The REST API answers
// the details as recorded; this only reads them.

const formatValue = (value: unknown): string => {
  if (value === null || value === undefined) return "none";
  if (typeof value === "string") return `“${value}”`;
  if (typeof value === "number") return value.toLocaleString("en-US");
  return JSON.stringify(value);
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function describeFilter(filter: Record<string, unknown>): string {
  const parts = Object.entries(filter).filter(([, value]) => value !== undefined && value !== "").map(([name, value]) => `${name} ${formatValue(value)}`);
  return parts.length ? `matching ${parts.join(", ")}` : "every delivery";
}

export function describeAuditDetails(action: string, details: Record<string, unknown>): string[] {
  if (Array.isArray(details.fields) && isRecord(details.changes)) {
    const changes = details.changes;
    const fields = details.fields as string[];
    if (fields.length === 0) return ["Nothing changed"];
    // A field without a value in `changes` is a secret: only that it changed is recorded.
    return fields.map((field) => (field in changes ? `${field} → ${formatValue(changes[field])}` : `${field} changed`));
  }
  if (typeof details.count === "number" && isRecord(details.filter)) {
    const what = action === "deliveries.buried" ? "buried" : "replayed";
    const lines = [`${details.count.toLocaleString("en-US")} ${details.count === 1 ? "delivery" : "deliveries"} ${what}, ${describeFilter(details.filter)}`];
    if (details.interrupted) lines.push("Interrupted: only these were changed");
    return lines;
  }
  if (action === "endpoint.secret_rotated") {
    return [
      details.generated ? "New secret generated" : "New secret given",
      details.previousSecretValidUntil ? `Previous secret verifies until ${String(details.previousSecretValidUntil).slice(0, 19).replace("T", " ")} UTC` : "No previous secret",
    ];
  }
  // Anything else (a new endpoint's settings, a key's name and role): what names it first, unset
  // values left out, and past a few lines the rest on one line.
  const entries = Object.entries(details)
    .filter(([, value]) => value !== null && value !== undefined)
    .sort(([a], [b]) => rank(a) - rank(b));
  const lines = entries.map(([name, value]) => `${name}: ${formatValue(value)}`);
  return lines.length > 4 ? [...lines.slice(0, 3), lines.slice(3).join(" · ")] : lines;
}

const FIRST = ["name", "email", "role", "provider", "destinationUrl", "type", "url"];
const rank = (name: string) => (FIRST.includes(name) ? FIRST.indexOf(name) : FIRST.length);
