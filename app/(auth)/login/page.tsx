import { AuthForm } from "@/components/auth/auth-form";
import { signInAction } from "../actions";

export const metadata = { title: "Sign in · Webhook Inbox" };

export default function LoginPage() {
  return <AuthForm mode="signin" action={signInAction} />;
}
