import { sql } from "drizzle-orm";
import { getDb } from "@/db";
import { findInvitationByTokenHash, type FoundInvitation } from "./invitation-state";
import { tokenHashOf } from "./invitation-token";

export type InvitationLookup =
  | { state: "unknown" }
  | { state: Exclude<FoundInvitation["state"], "pending"> }
  | (Omit<FoundInvitation, "state"> & { state: "pending"; accountExists: boolean });

/**
 * What the invite page shows for a link: a dead link only says why it is dead; a pending one names
 * the organization, the role and the address, and whether that address has an account (sign in) or not
 * (sign up). The token names its organization, as an ingest URL names its endpoint: no session needed.
 */
export async function lookUpInvitation(token: string): Promise<InvitationLookup> {
  const tokenHash = tokenHashOf(token);
  const found = tokenHash ? await findInvitationByTokenHash(getDb(), tokenHash) : null;
  if (!found) return { state: "unknown" };
  if (found.state !== "pending") return { state: found.state };
  const [account] = await getDb().execute<{ exists: boolean }>(sql`select exists (select 1 from users where email = ${found.email}) as exists`);
  return { ...found, state: "pending", accountExists: account!.exists };
}
