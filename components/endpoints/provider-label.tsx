// An endpoint's provider as people know it; `none` carries an "Unsafe" badge wherever it is listed.
import { providerName } from "@/lib/signatures/provider-names";

export function ProviderLabel({ provider }: { provider: string }) {
  return (
    <span className="inline-flex items-center gap-1.5" data-testid="provider">
      {providerName(provider)}
      {provider === "none" ? (
        <span className="rounded bg-red-50 px-1.5 py-0.5 text-xs font-medium text-red-800 ring-1 ring-red-300 ring-inset" title="Does not verify signatures: anyone who knows the URL can send to it">
          Unsafe
        </span>
      ) : null}
    </span>
  );
}
