import { notFound } from "next/navigation";
import { Card } from "@/components/ui/card";
import { CopyableValue } from "@/components/ui/copy-button";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { getEndpoint } from "@/lib/endpoints/get-endpoint";
import { NotFoundError } from "@/lib/errors";

export default async function EndpointPage({ params }: { params: Promise<{ id: string }> }) {
  const ctx = await requireDashboardCtx();
  const endpoint = await getEndpoint({ ctx, input: await params }).catch((error) => {
    if (error instanceof NotFoundError) notFound();
    throw error;
  });
  const settings: Array<[string, string]> = [
    ["Provider", endpoint.provider],
    ["Destination", endpoint.destinationUrl],
    ["Status", endpoint.paused ? "paused" : "active"],
    ["Max attempts", String(endpoint.maxAttempts)],
    ["Retry base", `${endpoint.retryBaseSeconds} s`],
    ["Timeout", `${endpoint.timeoutMs} ms`],
    ["Max body", `${endpoint.maxBodyBytes} bytes`],
    ["Alert when oldest pending is older than", endpoint.alertPendingAgeSeconds ? `${endpoint.alertPendingAgeSeconds} s` : "off"],
  ];
  return (
    <Card title={endpoint.name}>
      <div className="mb-4">
        <div className="text-sm font-medium text-slate-700">Ingest URL</div>
        <CopyableValue value={endpoint.ingestUrl} testId="ingest-url" />
      </div>
      <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
        {settings.map(([label, value]) => (
          <div key={label}>
            <dt className="text-slate-500">{label}</dt>
            <dd className="break-all">{value}</dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}
