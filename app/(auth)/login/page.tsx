import { AuthForm } from "@/components/auth/auth-form";
import { signInAction } from "../actions";

export default function LoginPage() {
  return <AuthForm mode="signin" action={signInAction} />;
}
