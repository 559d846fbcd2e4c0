import { getDb, type DbOrTx } from "@/db";
import { memberships, organizations, users } from "@/db/schema";
import { hashPassword, passwordProblem } from "@/lib/crypto/password";
import { ConflictError, ValidationError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { z } from "zod";

export const SignUpInput = z.object({
  email: z.email("Enter a valid email address.").transform((email) => email.trim().toLowerCase()),
  password: z.string(),
  name: z.string().trim().max(200).optional(),
  organizationName: z.string().trim().min(1, "Name the organization.").max(200),
});
export type SignUpInput = z.input<typeof SignUpInput>;

/** Sign-up: a user, their organization, and an owner membership, all or nothing. */
export async function createOrganizationWithOwner(
  input: SignUpInput,
  db: DbOrTx = getDb(),
): Promise<{ organizationId: string; userId: string }> {
  const parsed = SignUpInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(parsed.error.issues[0]?.message ?? "Invalid sign-up.");
  const problem = passwordProblem(parsed.data.password);
  if (problem) throw new ValidationError(problem);
  const passwordHash = await hashPassword(parsed.data.password);
  const organizationId = newId("org");
  const userId = newId("usr");
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(users)
      .values({ id: userId, email: parsed.data.email, name: parsed.data.name || null, passwordHash })
      .onConflictDoNothing({ target: users.email })
      .returning({ id: users.id });
    if (inserted.length === 0) throw new ConflictError("An account with that email already exists. Sign in instead.");
    await tx.insert(organizations).values({ id: organizationId, name: parsed.data.organizationName });
    await tx.insert(memberships).values({ organizationId, userId, role: "owner" });
    return { organizationId, userId };
  });
}
