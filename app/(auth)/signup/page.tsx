import { AuthForm } from "@/components/auth/auth-form";
import { signUpAction } from "../actions";

export const metadata = { title: "Sign up · Webhook Inbox" };

export default function SignUpPage() {
  return <AuthForm mode="signup" action={signUpAction} />;
}
