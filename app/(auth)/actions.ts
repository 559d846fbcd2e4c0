"use server";
// Sign-up, sign-in and sign-out for the dashboard (Auth.js credentials).
import { AuthError } from "next-auth";
import { signIn, signOut } from "@/lib/auth/auth";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { createOrganizationWithOwner } from "@/lib/organizations/create-organization-with-owner";

const field = (form: FormData, name: string) => String(form.get(name) ?? "");

async function signInWith(email: string, password: string): Promise<FormState> {
  try {
    await signIn("credentials", { email, password, redirectTo: "/overview" });
  } catch (error) {
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
    await createOrganizationWithOwner({ email, password: field(form, "password"), organizationName: field(form, "organizationName") });
    return signInWith(email, field(form, "password"));
  }, form);
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/login" });
}
