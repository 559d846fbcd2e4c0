import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { can } from "@/lib/access/roles";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { CreateEndpointForm } from "@/components/endpoints/create-endpoint-form";
import { providerGuides } from "@/lib/signatures";
import { GENERATES_SECRET } from "@/lib/endpoints/endpoint-input";
import { createEndpointAction } from "../actions";
import { rotateSecretAction } from "../[id]/secret-actions";

export const metadata = { title: "New endpoint · Webhook Inbox" };

export default async function NewEndpointPage() {
  const ctx = await requireDashboardCtx();
  return (
    <>
      <h1 className="text-lg font-semibold">New endpoint</h1>
      <Card>
        {can(ctx.actor, "change") ? (
          <CreateEndpointForm
            action={createEndpointAction.bind(null, ctx.organizationId)}
            setSecretAction={rotateSecretAction.bind(null, ctx.organizationId)}
            providers={providerGuides()}
            generating={[...GENERATES_SECRET]}
          />
        ) : (
          <Alert tone="warning">Your role in this organization (viewer) can see endpoints but not create them.</Alert>
        )}
      </Card>
    </>
  );
}
