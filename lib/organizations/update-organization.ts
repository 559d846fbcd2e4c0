import { eq } from "drizzle-orm";
import { organizations } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { assertDigestRecipientsAreMembers } from "@/lib/digest/assert-digest-recipients-are-members";
import { digestColumns } from "@/lib/digest/digest-settings-input";
import { NotFoundError } from "@/lib/errors";
import { parseInput } from "@/lib/validation";
import { getOrganization } from "./get-organization";
import { UpdateOrganizationInput } from "./organization-input";
import { presentOrganization, type OrganizationView } from "./present-organization";

/**
 * Renames ctx's organization, changes how long its settled deliveries are kept (the retention sweep's next
 * statement reads it: lib/retention), and/or sets its daily digest (lib/digest; recipients must be members).
 * Audited as `organization.updated` with the fields that changed and their new values.
 */
export async function updateOrganization({ ctx, input }: { ctx: Ctx; input: { changes: unknown } }): Promise<OrganizationView> {
  const changes = parseInput(UpdateOrganizationInput, input.changes);
  if (Object.keys(changes).length === 0) return getOrganization({ ctx });
  const row = await withTransaction(ctx, async (tx) => {
    // Locked, so the entry's "from" values are the ones this update replaced.
    const [before] = await tx.db.select().from(organizations).where(eq(organizations.id, ctx.organizationId)).for("update");
    if (!before) throw new NotFoundError("Organization");
    const { digest, ...plain } = changes;
    if (digest?.recipients) await assertDigestRecipientsAreMembers({ ctx: tx, input: { recipients: digest.recipients } });
    const columns = { ...plain, ...(digest === undefined ? {} : digestColumns(digest)) };
    const [after] = await tx.db.update(organizations).set(columns).where(eq(organizations.id, ctx.organizationId)).returning();
    const [was, is] = [presentOrganization(before), presentOrganization(after!)];
    const changed = (Object.keys(changes) as Array<keyof typeof changes>).filter((field) => JSON.stringify(was[field]) !== JSON.stringify(is[field]));
    await recordAudit(tx, {
      action: "organization.updated",
      target: { type: "organization", id: ctx.organizationId },
      details: { fields: changed, changes: Object.fromEntries(changed.map((field) => [field, is[field]])) },
    });
    return after!;
  });
  return presentOrganization(row);
}
