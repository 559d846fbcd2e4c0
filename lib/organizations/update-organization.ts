import { eq } from "drizzle-orm";
import { organizations } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { parseInput } from "@/lib/validation";
import { getOrganization } from "./get-organization";
import { UpdateOrganizationInput } from "./organization-input";
import { presentOrganization, type OrganizationView } from "./present-organization";

/**
 * Renames ctx's organization and/or changes how long its settled deliveries are kept. Either takes
 * effect at the retention sweep's next statement (lib/retention reads the current value in each).
 */
export async function updateOrganization({ ctx, input }: { ctx: Ctx; input: { changes: unknown } }): Promise<OrganizationView> {
  const changes = parseInput(UpdateOrganizationInput, input.changes);
  if (Object.keys(changes).length === 0) return getOrganization({ ctx });
  const [row] = await ctx.db.update(organizations).set(changes).where(eq(organizations.id, ctx.organizationId)).returning();
  if (!row) throw new NotFoundError("Organization");
  return presentOrganization(row);
}
