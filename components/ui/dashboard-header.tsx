"use client";
// The dashboard's header: which organization and who is signed in, a switcher between the user's
// organizations (and a link to create one), the main navigation, sign-out.
// Below md the navigation and the account part fold behind a Menu button, closed again on arrival.
// Links here do not prefetch: pages that refresh themselves would fetch every one of them again on
// each refresh (components/ui/auto-refresh.tsx).

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";

interface OrganizationChoice {
  id: string;
  name: string;
  role: string;
}

interface Props {
  items: ReadonlyArray<{ href: string; label: string }>;
  /** The organization the session works in; null when the user has none left. */
  organization: OrganizationChoice | null;
  organizations: readonly OrganizationChoice[];
  email: string;
  switchAction: (form: FormData) => Promise<void>;
  signOutAction: () => Promise<void>;
}

export function DashboardHeader({ items, organization, organizations, email, switchAction, signOutAction }: Props) {
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
              {organization ? (
                <Link href="/settings" prefetch={false} className="block truncate font-medium text-slate-900 hover:text-indigo-700" data-testid="organization-name">
                  {organization.name}
                  <span className="sr-only"> (organization settings)</span>
                </Link>
              ) : (
                <span className="block font-medium text-slate-600" data-testid="organization-name">No organization</span>
              )}
              <div className="truncate text-xs text-slate-600" data-testid="signed-in-user">{email}{organization ? ` · ${organization.role}` : ""}</div>
            </div>
            {organizations.length > (organization ? 1 : 0) ? (
              // A button, not a change event: moving through the options with the keyboard must not switch. The server checks the membership.
              <form action={switchAction} key={organization?.id ?? "none"} className="flex items-center gap-1.5">
                <label className="sr-only" htmlFor="switch-organization">Switch organization</label>
                <select
                  id="switch-organization"
                  name="organizationId"
                  defaultValue={organization?.id ?? ""}
                  className="max-w-48 rounded-md border-0 px-2 py-1 text-sm ring-1 ring-slate-300"
                >
                  {organization ? null : <option value="" disabled>Choose an organization</option>}
                  {organizations.map((choice) => (
                    <option key={choice.id} value={choice.id}>{choice.name}</option>
                  ))}
                </select>
                <button type="submit" className="rounded-md px-2 py-1 text-sm text-slate-700 ring-1 ring-slate-300 hover:text-indigo-700">Switch</button>
              </form>
            ) : null}
            <Link href="/organizations/new" prefetch={false} className="text-sm text-indigo-700 hover:underline">New organization</Link>
            <form action={signOutAction}>
              <button className="text-sm text-slate-600 hover:text-slate-900">Sign out</button>
            </form>
          </div>
        </div>
      </div>
    </header>
  );
}
