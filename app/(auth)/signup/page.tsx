import { AuthForm } from "@/components/auth/auth-form";
import { signUpAction } from "../actions";

export default function SignUpPage() {
  return <AuthForm mode="signup" action={signUpAction} />;
}
