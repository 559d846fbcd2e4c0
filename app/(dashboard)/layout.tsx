import type { ReactNode } from "react";
import { DashboardHeader } from "@/components/ui/dashboard-header";
import { requireSignedInUser } from "@/lib/auth/dashboard-ctx";
import { getSignedInUser } from "@/lib/organizations/get-signed-in-user";
import { signOutAction } from "../(auth)/actions";
import { switchOrganizationAction } from "./organizations/actions";

const nav = [
  { href: "/overview", label: "Overview" },
  { href: "/deliveries", label: "Deliveries" },
  { href: "/incidents", label: "Incidents" },
  { href: "/endpoints", label: "Endpoints" },
  { href: "/api-keys", label: "API keys" },
  { href: "/members", label: "Members" },
  { href: "/mailbox", label: "Mailbox" },
  { href: "/audit-log", label: "Audit log" },
  { href: "/settings", label: "Settings" },
  { href: "/account", label: "Account" },
] as const;

// Signed in is enough here: a user with no organization left still sees the header (and the page to
// create one); every page inside asks for the organization and the role it needs (requireDashboardCtx).
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await requireSignedInUser();
  const user = await getSignedInUser({ input: { userId: session.userId } });
  const current = user.organizations.find((organization) => organization.id === session.organizationId) ?? null;
  return (
    <div className="min-h-screen">
      <DashboardHeader
        items={current ? nav : nav.filter((item) => item.href === "/account")}
        organization={current}
        organizations={user.organizations}
        email={user.email}
        switchAction={switchOrganizationAction}
        signOutAction={signOutAction}
      />
      <main className="mx-auto max-w-6xl space-y-6 px-4 py-6 sm:px-6 sm:py-8">{children}</main>
    </div>
  );
}
