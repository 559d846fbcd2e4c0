import { redirect } from "next/navigation";
import { auth } from "@/lib/auth/auth";

export default async function Home() {
  const session = await auth();
  redirect(session?.organizationId ? "/overview" : "/login");
}
