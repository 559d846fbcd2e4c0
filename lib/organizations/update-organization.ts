import { eq } from "drizzle-orm";
import { organizations } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { parseInput } from "@/lib/validation";
import { getOrganization } from "./get-organization";
import { UpdateOrganizationInput } from "./organization-input";
import { presentOrganization, type OrganizationView } from "./present-organization";

/**
 * Renames ctx's organization and/or changes how long its settled deliveries are kept. Either takes
 * effect at the retention sweep's next statement (lib/retention reads the current value in each).
 * Audited as `organization.updated` with the fields that changed and their new values.
 */
export async function updateOrganization({ ctx, input }: { ctx: Ctx; input: { changes: unknown } }): Promise<OrganizationView> {
  const changes = parseInput(UpdateOrganizationInput, input.changes);
  if (Object.keys(changes).length === 0) return getOrganization({ ctx });
  const row = await withTransaction(ctx, async (tx) => {
    // Locked, so the entry's "from" values are the ones this update replaced.
    const [before] = await tx.db.select().from(organizations).where(eq(organizations.id, ctx.organizationId)).for("update");
    if (!before) throw new NotFoundError("Organization");
    const [after] = await tx.db.update(organizations).set(changes).where(eq(organizations.id, ctx.organizationId)).returning();
    const changed = (Object.keys(changes) as Array<keyof typeof changes>).filter((field) => before[field] !== after![field]);
    await recordAudit(tx, {
      action: "organization.updated",
      target: { type: "organization", id: ctx.organizationId },
      details: { fields: changed, changes: Object.fromEntries(changed.map((field) => [field, after![field]])) },
    });
    return after!;
  });
  return presentOrganization(row);
}
