import { Card } from "@/components/ui/card";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { changePasswordAction } from "./actions";
import { ChangePasswordForm } from "./change-password-form";

export const metadata = { title: "Account · Webhook Inbox" };

export default async function AccountPage() {
  await requireDashboardCtx();
  return (
    <>
      <h1 className="text-lg font-semibold">Account</h1>
      <Card title="Change password">
        <ChangePasswordForm action={changePasswordAction} />
      </Card>
    </>
  );
}
