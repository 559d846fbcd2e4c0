import { eq } from "drizzle-orm";
import { organizations } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { presentOrganization, type OrganizationView } from "./present-organization";

/** ctx's own organization: a key or session sees no other. */
export async function getOrganization({ ctx }: { ctx: Ctx }): Promise<OrganizationView> {
  const [row] = await ctx.db.select().from(organizations).where(eq(organizations.id, ctx.organizationId)).limit(1);
  if (!row) throw new NotFoundError("Organization");
  return presentOrganization(row);
}
