"use client";
// The dashboard's header: which organization and who is signed in, the main navigation, sign-out.
// Below md the navigation and the account part fold behind a Menu button, closed again on arrival.
// Links here do not prefetch: pages that refresh themselves would fetch every one of them again on
// each refresh (components/ui/auto-refresh.tsx).

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";

interface Props {
  items: ReadonlyArray<{ href: string; label: string }>;
  organizationName: string;
  email: string;
  signOutAction: () => Promise<void>;
}

export function DashboardHeader({ items, organizationName, email, signOutAction }: Props) {
  const pathname = usePathname();
  // Open for the page it was opened on: following a link closes it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const folded = open ? "flex" : "hidden md:flex";
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-3 px-4 py-3 sm:px-6">
        <Link href="/overview" prefetch={false} className="font-semibold text-indigo-700">Webhook Inbox</Link>
        <button
          type="button"
          className="ml-auto rounded-md px-2.5 py-1 text-sm font-medium text-slate-700 ring-1 ring-slate-300 md:hidden"
          aria-expanded={open}
          aria-controls="dashboard-menu"
          onClick={() => setOpenOn(open ? null : pathname)}
        >
          Menu
        </button>
        <div id="dashboard-menu" className={`${folded} w-full flex-col gap-3 md:w-auto md:flex-1 md:flex-row md:items-center md:gap-6`}>
          <nav aria-label="Main" className="flex flex-col gap-3 text-sm md:flex-row md:flex-wrap md:gap-4">
            {items.map((item) => {
              const current = pathname === item.href || pathname.startsWith(`${item.href}/`);
              return (
                <Link
                  key={item.href}
                  href={item.href}
                  prefetch={false}
                  aria-current={current ? "page" : undefined}
                  className={current ? "font-semibold text-indigo-700 underline underline-offset-4" : "text-slate-700 hover:text-indigo-700"}
                >
                  {item.label}
                </Link>
              );
            })}
          </nav>
          <div className="flex flex-col gap-2 border-t border-slate-200 pt-3 text-sm md:ml-auto md:flex-row md:items-center md:gap-4 md:border-0 md:pt-0">
            <div className="min-w-0 md:text-right">
              <Link href="/settings" prefetch={false} className="block truncate font-medium text-slate-900 hover:text-indigo-700" data-testid="organization-name">
                {organizationName}
                <span className="sr-only"> (organization settings)</span>
              </Link>
              <div className="truncate text-xs text-slate-600" data-testid="signed-in-user">{email}</div>
            </div>
            <form action={signOutAction}>
              <button className="text-sm text-slate-600 hover:text-slate-900">Sign out</button>
            </form>
          </div>
        </div>
      </div>
    </header>
  );
}
