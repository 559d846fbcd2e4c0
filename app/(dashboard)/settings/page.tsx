import { DeleteOrganizationForm } from "@/components/organization/delete-organization-form";
import { DigestSettingsForm } from "@/components/organization/digest-settings-form";
import { OrganizationSettingsForm } from "@/components/organization/organization-settings-form";
import { Card } from "@/components/ui/card";
import { CopyableValue } from "@/components/ui/copy-button";
import { can } from "@/lib/access/roles";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { getOrganization } from "@/lib/organizations/get-organization";
import { deleteOrganizationAction, updateDigestAction, updateOrganizationAction } from "./actions";

export const metadata = { title: "Settings · Webhook Inbox" };

// The organization's own settings: its id (for the CLI), its name and how long its deliveries are kept, its
// daily digest, and (owners only) deleting it. A viewer sees the settings without a way to change them.
export default async function SettingsPage() {
  const ctx = await requireDashboardCtx();
  const organization = await getOrganization({ ctx });
  return (
    <>
      <h1 className="text-lg font-semibold">Organization settings</h1>
      <Card title="Organization id">
        <div className="max-w-md space-y-2">
          <CopyableValue value={organization.id} testId="organization-id" />
          <p className="text-xs text-slate-500">
            The CLI asks for it: <code className="font-mono">npm run inbox -- apikey:create --org {organization.id}</code>
          </p>
        </div>
      </Card>
      <Card title="Name and retention">
        <OrganizationSettingsForm action={updateOrganizationAction.bind(null, ctx.organizationId)} organization={organization} readOnly={!can(ctx.actor, "change")} />
      </Card>
      <Card title="Daily digest">
        <DigestSettingsForm action={updateDigestAction.bind(null, ctx.organizationId)} digest={organization.digest} readOnly={!can(ctx.actor, "change")} />
      </Card>
      {can(ctx.actor, "delete_organization") ? (
        <Card title="Delete organization">
          <DeleteOrganizationForm action={deleteOrganizationAction.bind(null, ctx.organizationId)} name={organization.name} />
        </Card>
      ) : null}
    </>
  );
}
