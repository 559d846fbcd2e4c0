import { Card } from "@/components/ui/card";
import { requireSignedInUser } from "@/lib/auth/dashboard-ctx";
import { changePasswordAction } from "./actions";
import { ChangePasswordForm } from "./change-password-form";

export const metadata = { title: "Account · Webhook Inbox" };

export default async function AccountPage() {
  await requireSignedInUser(); // their own account: in any organization, or none
  return (
    <>
      <h1 className="text-lg font-semibold">Account</h1>
      <Card title="Change password">
        <ChangePasswordForm action={changePasswordAction} />
      </Card>
    </>
  );
}
