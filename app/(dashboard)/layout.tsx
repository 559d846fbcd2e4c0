import type { ReactNode } from "react";
import { DashboardHeader } from "@/components/ui/dashboard-header";
import { requireSignedInUser } from "@/lib/auth/dashboard-ctx";
import { config } from "@/lib/config/config";
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

/** The embedded database's default at work: private destinations allowed because nobody said otherwise. */
const privateDestinationsByDefault = () => config().INBOX_EMBEDDED_DATABASE && config().INBOX_ALLOW_PRIVATE_DESTINATIONS;

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
      {privateDestinationsByDefault() ? (
        <div className="border-b border-amber-200 bg-amber-50" data-testid="private-destinations-banner">
          <p className="mx-auto max-w-6xl px-4 py-2 text-xs text-amber-900 sm:px-6">
            Local mode: with the embedded database (no <code className="font-mono">DATABASE_URL</code>), destinations on this machine and private
            networks are allowed, such as <code className="font-mono">http://localhost:4000/hook</code>. Set <code className="font-mono">INBOX_ALLOW_PRIVATE_DESTINATIONS=false</code> to refuse them.
          </p>
        </div>
      ) : null}
      <main className="mx-auto max-w-6xl space-y-6 px-4 py-6 sm:px-6 sm:py-8">{children}</main>
    </div>
  );
}
