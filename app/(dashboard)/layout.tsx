import Link from "next/link";
import type { ReactNode } from "react";
import { NavLinks } from "@/components/ui/nav-links";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { signOutAction } from "../(auth)/actions";

const nav = [
  { href: "/overview", label: "Overview" },
  { href: "/deliveries", label: "Deliveries" },
  { href: "/endpoints", label: "Endpoints" },
  { href: "/api-keys", label: "API keys" },
  { href: "/mailbox", label: "Mailbox" },
  { href: "/settings", label: "Settings" },
  { href: "/account", label: "Account" },
] as const;

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  await requireDashboardCtx();
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl items-center gap-6 px-6 py-3">
          <Link href="/overview" className="font-semibold text-indigo-700">Webhook Inbox</Link>
          <NavLinks items={nav} />
          <form action={signOutAction} className="ml-auto">
            <button className="text-sm text-slate-600 hover:text-slate-900">Sign out</button>
          </form>
        </div>
      </header>
      <main className="mx-auto max-w-6xl space-y-6 px-6 py-8">{children}</main>
    </div>
  );
}
