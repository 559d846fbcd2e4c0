import { Card } from "@/components/ui/card";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { changePasswordAction } from "./actions";
import { ChangePasswordForm } from "./change-password-form";

export const metadata = { title: "Account · Webhook Inbox" };

export default async function AccountPage() {
  await requireDashboardCtx();
  return (
    <Card title="Account">
      <h2 className="mb-3 text-sm font-semibold text-slate-700">Change password</h2>
      <ChangePasswordForm action={changePasswordAction} />
    </Card>
  );
}
