import Link from "next/link";
import { Card } from "@/components/ui/card";
import { CopyableValue } from "@/components/ui/copy-button";
import { ProviderLabel } from "@/components/endpoints/provider-label";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { listEndpoints } from "@/lib/endpoints/list-endpoints";

export const metadata = { title: "Endpoints · Webhook Inbox" };

export default async function EndpointsPage() {
  const ctx = await requireDashboardCtx();
  const { data } = await listEndpoints({ ctx, input: { limit: 200 } });
  return (
    <Card title="Endpoints" actions={<Link href="/endpoints/new" className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white">New endpoint</Link>}>
      {data.length === 0 ? (
        <p className="text-sm text-slate-600">No endpoints yet. Create one to get an ingest URL.</p>
      ) : (
        <ul className="divide-y divide-slate-200">
          {data.map((endpoint) => (
            <li key={endpoint.id} className="grid gap-2 py-3 sm:grid-cols-[1fr_2fr] sm:items-center">
              <div>
                <Link href={`/endpoints/${endpoint.id}`} className="font-medium text-indigo-700 hover:underline">{endpoint.name}</Link>
                <div className="text-xs text-slate-500">
                  <ProviderLabel provider={endpoint.provider} /> · {endpoint.paused ? "paused" : "active"}
                </div>
              </div>
              <CopyableValue value={endpoint.ingestUrl} />
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
