import { sql } from "drizzle-orm";
import { withTransaction, type Ctx } from "@/lib/context";
import { NotFoundError, ValidationError } from "@/lib/errors";
import { enqueue } from "@/lib/queue/enqueue";
import { jobSpec } from "@/lib/queue/job-registry";

/**
 * Deletes ctx's organization once `confirmName` is its name. In one transaction, access ends: the row
 * is marked deleted, its memberships, API keys and invitations go, and every session working in it
 * moves to its user's most recently used other organization (none left: to no organization, where the
 * dashboard offers to create one). The data (endpoints, deliveries and the rest) goes in the background
 * (jobs/delete-organization.ts), queued in the same transaction. Who may do it is the caller's check
 * ("delete_organization", owners only).
 */
export async function deleteOrganization({ ctx, input }: { ctx: Ctx; input: { confirmName: unknown } }): Promise<void> {
  await withTransaction(ctx, async (ctx) => {
    const [organization] = await ctx.db.execute<{ name: string }>(sql`
      select name from organizations where id = ${ctx.organizationId} and deleted_at is null for update`);
    if (!organization) throw new NotFoundError("Organization");
    if (typeof input.confirmName !== "string" || input.confirmName.trim() !== organization.name) {
      throw new ValidationError(`Type the organization's name, “${organization.name}”, to delete it.`);
    }
    await ctx.db.execute(sql`update organizations set deleted_at = now() where id = ${ctx.organizationId}`);
    await ctx.db.execute(sql`delete from memberships where organization_id = ${ctx.organizationId}`);
    await ctx.db.execute(sql`delete from api_keys where organization_id = ${ctx.organizationId}`);
    await ctx.db.execute(sql`delete from invitations where organization_id = ${ctx.organizationId}`);
    await ctx.db.execute(sql`
      update sessions s set organization_id = (
        select m.organization_id from memberships m join organizations o on o.id = m.organization_id and o.deleted_at is null
        where m.user_id = s.user_id
        order by m.last_used_at desc nulls last, m.created_at, m.organization_id limit 1)
      where s.organization_id = ${ctx.organizationId}`);
    await enqueue(ctx.db, [jobSpec("delete-organization", { organizationId: ctx.organizationId })]);
  });
}
