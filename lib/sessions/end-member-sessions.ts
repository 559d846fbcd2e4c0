import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";

/**
 * Ends a user's sessions working in one organization (their removal from it): those cookies open
 * nothing afterwards; sessions of the user in their other organizations go on.
 */
export async function endMemberSessions(db: DbOrTx, input: { userId: string; organizationId: string }): Promise<void> {
  await db.execute(sql`delete from sessions where user_id = ${input.userId} and organization_id = ${input.organizationId}`);
}
