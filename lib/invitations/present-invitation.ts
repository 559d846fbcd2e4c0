import type { invitations } from "@/db/schema";

/** The public invitation object (API.md): never the token, never its hash. */
export function presentInvitation(row: Pick<typeof invitations.$inferSelect, "id" | "email" | "role" | "expiresAt">) {
  return { id: row.id, email: row.email, role: row.role, expiresAt: row.expiresAt.toISOString() };
}
export type InvitationView = ReturnType<typeof presentInvitation>;
