// What the audit log says about an endpoint (API.md "Audit log"): its settings as the public endpoint
// object shows them, never a secret. A secret, outbound secret or verify token only shows up as a
// field name in `fields` when it changed; its value is never read here.
import type { EndpointRow } from "./endpoint-row";
import { presentEndpoint } from "./present-endpoint";
import { readProviderSettings } from "./provider-settings";

/** The settings an entry may show: the endpoint object's, minus what is derived or not a setting. */
export function auditedSettings(row: EndpointRow): Record<string, unknown> {
  const {
    id: _id, ingestUrl: _ingestUrl, createdAt: _createdAt, previousSecretValidUntil: _validUntil,
    hasSecret: _hasSecret, awaitingSecret: _awaitingSecret, hasVerifyToken: _hasVerifyToken, signsOutbound: _signsOutbound, ...settings
  } = presentEndpoint(row);
  return settings;
}

/** Secret columns by the input field that sets them; compared as ciphertexts (a new encryption = changed). */
const SECRET_FIELDS: Record<string, (row: EndpointRow) => string | null> = {
  secret: (row) => row.secretEncrypted,
  outboundSecret: (row) => row.outboundSecretEncrypted,
  verifyToken: (row) => readProviderSettings(row.provider, row.genericHmac).verifyTokenEncrypted,
};

/**
 * `{fields, changes}`: the names of the fields whose value differs between the two rows, and the new
 * values of those that are not secrets. A PATCH that repeats current values lists nothing.
 */
export function endpointChangeDetails(before: EndpointRow, after: EndpointRow): { fields: string[]; changes: Record<string, unknown> } {
  const old = auditedSettings(before);
  const changes: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(auditedSettings(after))) {
    if (JSON.stringify(value) !== JSON.stringify(old[name])) changes[name] = value;
  }
  const secrets = Object.entries(SECRET_FIELDS).filter(([, read]) => read(before) !== read(after)).map(([name]) => name);
  return { fields: [...Object.keys(changes), ...secrets], changes };
}
