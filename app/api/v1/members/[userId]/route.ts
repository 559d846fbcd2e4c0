// PATCH/DELETE /api/v1/members/:userId — change a member's role, or remove them (never the last owner)
import { apiRoute } from "@/lib/http/api-route";
import { changeMemberRole } from "@/lib/members/change-member-role";
import { removeMember } from "@/lib/members/remove-member";

const MANAGE = { permission: "manage_members" } as const;

export const PATCH = apiRoute<{ userId: string }>(
  async ({ ctx, params, json }) => Response.json(await changeMemberRole({ ctx, input: { userId: params.userId, changes: await json() } })),
  {},
  MANAGE,
);

export const DELETE = apiRoute<{ userId: string }>(async ({ ctx, params }) => {
  await removeMember({ ctx, input: { userId: params.userId } });
  return new Response(null, { status: 204 });
}, {}, MANAGE);
