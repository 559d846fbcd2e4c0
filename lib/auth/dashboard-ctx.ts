import { redirect } from "next/navigation";
import { createCtx, type Ctx } from "@/lib/context";
import { auth } from "./auth";

/** The signed-in user's tenant ctx for dashboard pages and actions; no session → the login page. */
export async function requireDashboardCtx(): Promise<Ctx & { actor: { type: "user"; userId: string } }> {
  const session = await auth();
  if (!session?.organizationId || !session.userId) redirect("/login");
  return createCtx(session.organizationId, { type: "user", userId: session.userId }) as Ctx & {
    actor: { type: "user"; userId: string };
  };
}
