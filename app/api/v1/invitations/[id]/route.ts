// DELETE /api/v1/invitations/:id — withdraw a pending invitation: its link stops working
import { apiRoute } from "@/lib/http/api-route";
import { withdrawInvitation } from "@/lib/invitations/withdraw-invitation";

export const DELETE = apiRoute<{ id: string }>(async ({ ctx, params }) => {
  await withdrawInvitation({ ctx, input: { id: params.id } });
  return new Response(null, { status: 204 });
}, {}, { permission: "manage_members" });
