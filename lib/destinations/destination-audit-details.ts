// What the audit log says about a destination (API.md "Audit log"): its settings as the destination object shows
// them, never a secret. An outbound secret only shows up as the field name `outboundSecret` in `fields` when it
// changed; its value is never read here.
import { presentDestination, type DestinationRow } from "./present-destination";

/** The settings an entry may show: the destination object's, minus what is derived or not a setting. */
export function auditedDestinationSettings(row: DestinationRow): Record<string, unknown> {
  const { id: _id, createdAt: _createdAt, signsOutbound: _signsOutbound, autoPaused: _autoPaused, ...settings } = presentDestination(row);
  return settings;
}

/**
 * `{fields, changes}`, as an endpoint's update records them: the names of the fields whose value differs between
 * the two rows, and the new values of those that are not secrets. A PATCH that repeats current values lists nothing.
 */
export function destinationChangeDetails(before: DestinationRow, after: DestinationRow): { fields: string[]; changes: Record<string, unknown> } {
  const old = auditedDestinationSettings(before);
  const changes: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(auditedDestinationSettings(after))) {
    if (JSON.stringify(value) !== JSON.stringify(old[name])) changes[name] = value;
  }
  // Compared as ciphertexts: a new encryption of the same secret counts as changed.
  const secrets = before.outboundSecretEncrypted !== after.outboundSecretEncrypted ? ["outboundSecret"] : [];
  return { fields: [...Object.keys(changes), ...secrets], changes };
}
