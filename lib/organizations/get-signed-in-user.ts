import { eq } from "drizzle-orm";
import { getDb, type DbOrTx } from "@/db";
import { users } from "@/db/schema";
import { NotFoundError } from "@/lib/errors";
import { listUserOrganizations, type UserOrganization } from "./list-user-organizations";

export interface SignedInUserView {
  email: string;
  name: string | null;
  /** Every organization they belong to, for the header's switcher. */
  organizations: UserOrganization[];
}

/** Who is signed in and the organizations they may switch between: for the dashboard's header. */
export async function getSignedInUser({ input, db = getDb() }: { input: { userId: string }; db?: DbOrTx }): Promise<SignedInUserView> {
  const [user] = await db.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, input.userId)).limit(1);
  if (!user) throw new NotFoundError("User");
  return { ...user, organizations: await listUserOrganizations({ input, db }) };
}
