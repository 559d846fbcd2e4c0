"use server";
// Sign-up, sign-in and sign-out for the dashboard (Auth.js credentials).
import { headers } from "next/headers";
import { signOut } from "@/lib/auth/auth";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { registerAccount } from "@/lib/auth/register-account";
import { signInWithPassword } from "@/lib/auth/sign-in-with-password";
import { throttleAddress } from "@/lib/http/client-address";

const field = (form: FormData, name: string) => String(form.get(name) ?? "");

export async function signInAction(_: FormState, form: FormData): Promise<FormState> {
  return runFormAction(() => signInWithPassword(field(form, "email"), field(form, "password"), form.get("callbackUrl")), form);
}

export async function signUpAction(_: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    const email = field(form, "email");
    const input = { email, password: field(form, "password"), organizationName: field(form, "organizationName") };
    await registerAccount(input, throttleAddress(await headers()));
    return signInWithPassword(email, field(form, "password"));
  }, form);
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/login" });
}
