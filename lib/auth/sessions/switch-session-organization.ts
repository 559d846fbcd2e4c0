import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";

/**
 * Points the user's session at `organizationId` (sessions.organization_id): every request after the
 * caller's commit works there. The membership is checked on each request (check-session.ts), so the
 * caller makes sure one exists, in the same transaction.
 */
export async function switchSessionOrganization(db: DbOrTx, input: { sessionId: string; userId: string; organizationId: string }): Promise<void> {
  await db.execute(sql`
    update sessions set organization_id = ${input.organizationId}
    where id = ${input.sessionId} and user_id = ${input.userId}`);
}
