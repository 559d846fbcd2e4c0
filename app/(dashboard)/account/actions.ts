"use server";
// The signed-in user's own account: change the password (ends the user's other sessions).
import { headers } from "next/headers";
import { changePassword } from "@/lib/auth/change-password";
import { requireSignedInUser } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { throttleAddress } from "@/lib/http/client-address";

export async function changePasswordAction(_: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    const { userId, sessionId } = await requireSignedInUser();
    const currentPassword = String(form.get("currentPassword") ?? "");
    const newPassword = String(form.get("newPassword") ?? "");
    await changePassword({ userId, sessionId, currentPassword, newPassword, address: throttleAddress(await headers()) });
    return { ok: true };
  }, form);
}
