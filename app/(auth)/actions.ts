"use server";
// Sign-up, sign-in and sign-out for the dashboard (Auth.js credentials).
import { AuthError } from "next-auth";
import { headers } from "next/headers";
import { signIn, signOut } from "@/lib/auth/auth";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { registerAccount } from "@/lib/auth/register-account";
import { SIGN_IN_BUSY_MESSAGE, signInAdmitted } from "@/lib/auth/sign-in-gate";
import { SignInRefused } from "@/lib/auth/sign-in-refused";
import { clientAddress } from "@/lib/http/client-address";

const field = (form: FormData, name: string) => String(form.get(name) ?? "");

async function signInWith(email: string, password: string): Promise<FormState> {
  if (!signInAdmitted()) return { error: SIGN_IN_BUSY_MESSAGE };
  try {
    await signIn("credentials", { email, password, redirectTo: "/overview" });
  } catch (error) {
    if (error instanceof SignInRefused) return { error: error.userMessage };
    if (error instanceof AuthError) return { error: "Wrong email or password." };
    throw error;
  }
  return {};
}

export async function signInAction(_: FormState, form: FormData): Promise<FormState> {
  return runFormAction(() => signInWith(field(form, "email"), field(form, "password")), form);
}

export async function signUpAction(_: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    const email = field(form, "email");
    const input = { email, password: field(form, "password"), organizationName: field(form, "organizationName") };
    await registerAccount(input, clientAddress(await headers()));
    return signInWith(email, field(form, "password"));
  }, form);
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/login" });
}
