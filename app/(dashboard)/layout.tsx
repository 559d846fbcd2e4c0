import type { ReactNode } from "react";
import { DashboardHeader } from "@/components/ui/dashboard-header";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { getSignedInMember } from "@/lib/organizations/get-signed-in-member";
import { signOutAction } from "../(auth)/actions";

const nav = [
  { href: "/overview", label: "Overview" },
  { href: "/deliveries", label: "Deliveries" },
  { href: "/endpoints", label: "Endpoints" },
  { href: "/api-keys", label: "API keys" },
  { href: "/members", label: "Members" },
  { href: "/mailbox", label: "Mailbox" },
  { href: "/audit-log", label: "Audit log" },
  { href: "/settings", label: "Settings" },
  { href: "/account", label: "Account" },
] as const;

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const ctx = await requireDashboardCtx();
  const member = await getSignedInMember({ ctx, input: { userId: ctx.actor.userId } });
  return (
    <div className="min-h-screen">
      <DashboardHeader items={nav} organizationName={member.organizationName} email={member.email} signOutAction={signOutAction} />
      <main className="mx-auto max-w-6xl space-y-6 px-4 py-6 sm:px-6 sm:py-8">{children}</main>
    </div>
  );
}
