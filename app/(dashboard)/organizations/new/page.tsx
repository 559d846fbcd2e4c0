import { CreateOrganizationForm } from "@/components/organization/create-organization-form";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { requireSignedInUser } from "@/lib/auth/dashboard-ctx";
import { createOrganizationAction } from "../actions";

export const metadata = { title: "New organization · Webhook Inbox" };

// Another organization, owned by the signed-in user; also where a user whose last organization was deleted lands.
export default async function NewOrganizationPage() {
  const { organizationId } = await requireSignedInUser();
  return (
    <>
      <h1 className="text-lg font-semibold">New organization</h1>
      {organizationId ? null : <Alert tone="warning">You no longer belong to any organization. Create one to go on.</Alert>}
      <Card>
        <CreateOrganizationForm action={createOrganizationAction} />
      </Card>
    </>
  );
}
