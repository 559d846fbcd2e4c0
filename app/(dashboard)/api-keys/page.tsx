import { ApiKeysPanel } from "@/components/api-keys/api-keys-panel";
import { Card } from "@/components/ui/card";
import { listApiKeys } from "@/lib/api-keys/list-api-keys";
import { can, canGrant, ROLES } from "@/lib/access/roles";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { createApiKeyAction, revokeApiKeyAction } from "./actions";

export const metadata = { title: "API keys · Webhook Inbox" };

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export default async function ApiKeysPage() {
  const ctx = await requireDashboardCtx();
  const keys = await listApiKeys({ ctx });
  // A viewer may create no key; an admin no owner key (lib/api-keys/create-api-key.ts says the same).
  const grantableRoles = can(ctx.actor, "change") ? ROLES.filter((role) => canGrant(ctx.actor, role)) : [];
  return (
    <>
      <h1 className="text-lg font-semibold">API keys</h1>
      <Card>
        <p className="mb-4 text-sm text-slate-600">Keys for the REST API (<code className="font-mono text-xs">Authorization: Bearer …</code>); each sees this organization only and may do what its role allows: owner everything, admin everything but members and deleting the organization, viewer read only. Only an owner may create an owner key.</p>
        <ApiKeysPanel
          keys={keys.map((key) => ({ ...key, createdAt: key.createdAt.toISOString(), lastUsedAt: iso(key.lastUsedAt), revokedAt: iso(key.revokedAt) }))}
          createAction={createApiKeyAction.bind(null, ctx.organizationId)}
          revokeAction={revokeApiKeyAction.bind(null, ctx.organizationId)}
          grantableRoles={grantableRoles}
        />
      </Card>
    </>
  );
}
