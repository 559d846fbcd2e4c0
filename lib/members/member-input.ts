import { z } from "zod";
import { ROLES } from "@/lib/access/roles";

/** PATCH /api/v1/members/{userId}: the new role. Unknown fields are refused. */
export const ChangeMemberRoleInput = z.strictObject({
  role: z.enum(ROLES, { error: "role must be one of owner, admin, viewer" }),
});
export type ChangeMemberRoleInput = z.input<typeof ChangeMemberRoleInput>;
