// What an endpoint keeps in its provider-settings column (endpoints.generic_hmac, jsonb): the
// generic-hmac scheme's description, or a verify token for a provider whose GET handshake needs one
// (Meta), encrypted like every secret at rest. The column is named and typed for generic-hmac in
// db/schema.ts; until it is renamed, these functions are the only code that knows it holds either.
import type { Provider } from "@/lib/signatures";
import type { GenericHmacConfig } from "@/lib/signatures/types";
import { takesVerifyToken } from "@/lib/signatures";

export interface ProviderSettings {
  genericHmac: GenericHmacConfig | null;
  verifyTokenEncrypted: string | null;
}

/** The settings as stored for `provider`: what that provider uses, nothing of another's. */
export function providerSettingsColumn(provider: Provider, settings: ProviderSettings): GenericHmacConfig | null {
  if (provider === "generic-hmac") return settings.genericHmac;
  if (takesVerifyToken(provider) && settings.verifyTokenEncrypted) {
    return { verifyTokenEncrypted: settings.verifyTokenEncrypted } as unknown as GenericHmacConfig; // the column's declared type, see above
  }
  return null;
}

export function readProviderSettings(provider: string, column: unknown): ProviderSettings {
  if (provider === "generic-hmac") return { genericHmac: (column as GenericHmacConfig | null) ?? null, verifyTokenEncrypted: null };
  const token = (column as { verifyTokenEncrypted?: unknown } | null)?.verifyTokenEncrypted;
  return { genericHmac: null, verifyTokenEncrypted: typeof token === "string" ? token : null };
}
