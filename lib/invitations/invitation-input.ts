import { z } from "zod";
import { ROLES } from "@/lib/access/roles";

const roleMessage = "role must be one of owner, admin, viewer";

/** POST /api/v1/invitations: who, and with which role. Unknown fields are refused. */
export const InviteMemberInput = z.strictObject({
  email: z
    .string({ error: "email must be text" })
    .trim()
    .max(254, "email must be at most 254 characters")
    .pipe(z.email("email must be a valid email address"))
    .transform((email) => email.toLowerCase()),
  role: z.enum(ROLES, { error: roleMessage }),
});
export type InviteMemberInput = z.input<typeof InviteMemberInput>;
