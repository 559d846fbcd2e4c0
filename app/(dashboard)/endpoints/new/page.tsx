import { Card } from "@/components/ui/card";
import { CreateEndpointForm } from "@/components/endpoints/create-endpoint-form";
import { providerGuides } from "@/lib/signatures";
import { createEndpointAction } from "../actions";

export const metadata = { title: "New endpoint · Webhook Inbox" };

export default function NewEndpointPage() {
  return (
    <>
      <h1 className="text-lg font-semibold">New endpoint</h1>
      <Card>
        <CreateEndpointForm action={createEndpointAction} providers={providerGuides()} />
      </Card>
    </>
  );
}
