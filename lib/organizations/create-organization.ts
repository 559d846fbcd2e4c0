import { z } from "zod";
import { getDb, type DbOrTx } from "@/db";
import { memberships, organizations } from "@/db/schema";
import { newId } from "@/lib/ids";
import { parseInput } from "@/lib/validation";

export const CreateOrganizationInput = z.strictObject({
  name: z.string({ error: "name must be text" }).trim().min(1, "name must not be empty").max(200, "name must be at most 200 characters"),
});
export type CreateOrganizationInput = z.input<typeof CreateOrganizationInput>;

/**
 * Another organization for a signed-in user, who becomes its owner; both rows or neither. Not scoped
 * to a tenant: it makes one (the dashboard then switches the session to it).
 */
export async function createOrganization({ input, db = getDb() }: { input: { userId: string; changes: unknown }; db?: DbOrTx }): Promise<{ organizationId: string }> {
  const { name } = parseInput(CreateOrganizationInput, input.changes);
  const organizationId = newId("org");
  await db.transaction(async (tx) => {
    await tx.insert(organizations).values({ id: organizationId, name });
    await tx.insert(memberships).values({ organizationId, userId: input.userId, role: "owner" });
  });
  return { organizationId };
}
