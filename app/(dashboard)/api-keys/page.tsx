import { CreateApiKeyForm } from "@/components/api-keys/create-api-key-form";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { listApiKeys } from "@/lib/api-keys/list-api-keys";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { createApiKeyAction, revokeApiKeyAction } from "./actions";

export const metadata = { title: "API keys · Webhook Inbox" };

export default async function ApiKeysPage() {
  const ctx = await requireDashboardCtx();
  const keys = await listApiKeys({ ctx });
  return (
    <Card title="API keys">
      <CreateApiKeyForm action={createApiKeyAction} />
      <table className="mt-6 w-full text-left text-sm">
        <thead className="text-slate-500">
          <tr><th className="py-2">Name</th><th>Key</th><th>Created</th><th>Last used</th><th /></tr>
        </thead>
        <tbody className="divide-y divide-slate-200">
          {keys.map((key) => (
            <tr key={key.id}>
              <td className="py-2">{key.name}</td>
              <td><code className="font-mono text-xs">{key.prefix}…</code></td>
              <td>{key.createdAt.toISOString().slice(0, 16).replace("T", " ")}</td>
              <td>{key.lastUsedAt ? key.lastUsedAt.toISOString().slice(0, 16).replace("T", " ") : "never"}</td>
              <td className="text-right">
                <form action={revokeApiKeyAction}>
                  <input type="hidden" name="id" value={key.id} />
                  <Button variant="danger" type="submit" aria-label={`Revoke ${key.name}`}>Revoke</Button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}
