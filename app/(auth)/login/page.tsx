import { AuthForm } from "@/components/auth/auth-form";
import { safeReturnPath } from "@/lib/auth/return-path";
import { signInAction } from "../actions";

export const metadata = { title: "Sign in · Webhook Inbox" };

// ?callbackUrl= is the dashboard page a signed-out visit asked for (lib/auth/dashboard-ctx.ts).
export default async function LoginPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string | string[] }> }) {
  const returnTo = safeReturnPath((await searchParams).callbackUrl);
  return <AuthForm mode="signin" action={signInAction} returnTo={returnTo} />;
}
