"use server";
import { redirect } from "next/navigation";
import { confirmAlertEmail } from "@/lib/alerts/confirm-alert-email";

/** The Confirm button: a POST, so a mail scanner that opens the link confirms nothing. */
export async function confirmAlertEmailAction(form: FormData): Promise<void> {
  const token = String(form.get("token") ?? "");
  await confirmAlertEmail({ token, confirm: true });
  redirect(`/confirm-alert-email/${encodeURIComponent(token)}`);
}
