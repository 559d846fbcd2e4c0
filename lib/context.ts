import { PgTransaction } from "drizzle-orm/pg-core";
import { getDb, type DbOrTx, type Tx } from "@/db";
import type { Actor } from "@/lib/access/roles";

/** What every tenant-scoped verb needs: whose data, who acts, and the db (or the caller's transaction). */
export interface Ctx {
  organizationId: string;
  actor: Actor;
  db: DbOrTx;
  /** The address the request came from (lib/http/client-address.ts), for the audit log; none for the system. */
  ip?: string | null;
}

export function createCtx(organizationId: string, actor: Actor, db: DbOrTx = getDb(), ip: string | null = null): Ctx {
  return { organizationId, actor, db, ip };
}

/** Runs fn in a transaction, reusing the caller's when ctx already holds one. */
export async function withTransaction<T>(ctx: Ctx, fn: (ctx: Ctx & { db: Tx }) => Promise<T>): Promise<T> {
  if (ctx.db instanceof PgTransaction) return fn(ctx as Ctx & { db: Tx });
  return (ctx.db as ReturnType<typeof getDb>).transaction((tx) => fn({ ...ctx, db: tx }));
}
