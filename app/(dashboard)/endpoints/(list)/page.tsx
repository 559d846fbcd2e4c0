import Link from "next/link";
import { ProviderLabel } from "@/components/endpoints/provider-label";
import { Card } from "@/components/ui/card";
import { CopyableValue } from "@/components/ui/copy-button";
import { can } from "@/lib/access/roles";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { listEndpoints } from "@/lib/endpoints/list-endpoints";

export const metadata = { title: "Endpoints · Webhook Inbox" };

export default async function EndpointsPage() {
  const ctx = await requireDashboardCtx();
  const { data } = await listEndpoints({ ctx, input: { limit: 200 } });
  return (
    <>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-lg font-semibold">Endpoints</h1>
        {can(ctx.actor, "change") ? (
          <Link href="/endpoints/new" className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-500">New endpoint</Link>
        ) : null}
      </div>
      <Card>
        {data.length === 0 ? (
          <p className="text-sm text-slate-600">No endpoints yet.{can(ctx.actor, "change") ? " Create one to get an ingest URL." : ""}</p>
        ) : (
          <ul className="divide-y divide-slate-200" aria-label="Endpoints">
            {data.map((endpoint) => (
              <li key={endpoint.id} data-testid="endpoint-item" className="grid grid-cols-[minmax(0,1fr)] gap-2 py-3 md:grid-cols-[minmax(0,1fr)_minmax(0,2fr)] md:items-center">
                <div className="min-w-0">
                  <Link href={`/endpoints/${endpoint.id}`} className="font-medium break-words text-indigo-700 hover:underline">{endpoint.name}</Link>
                  <div className="flex flex-wrap items-center gap-x-1.5 text-xs text-slate-600">
                    <ProviderLabel provider={endpoint.provider} /> · <span data-testid="endpoint-state">{endpoint.paused ? "paused" : "active"}</span>
                  </div>
                </div>
                <CopyableValue value={endpoint.ingestUrl} />
              </li>
            ))}
          </ul>
        )}
      </Card>
    </>
  );
}
