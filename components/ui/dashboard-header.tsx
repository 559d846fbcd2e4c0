"use client";
// The dashboard's header: which organization and who is signed in, a switcher between the user's
// organizations (and a link to create one), sign-out; under them the main navigation, on a row of its own.
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
      <div className="mx-auto max-w-6xl px-4 sm:px-6">
        {/* md and up, two rows: who and where (organization, switcher, user, sign-out), then the navigation on a row of its own. */}
        <div className="flex flex-wrap items-center gap-x-4 gap-y-3 py-3 md:flex-nowrap">
          <Link href="/overview" prefetch={false} className="shrink-0 font-semibold whitespace-nowrap text-indigo-700">Webhook Inbox</Link>
          <button
            type="button"
            className="ml-auto rounded-md px-2.5 py-1 text-sm font-medium text-slate-700 ring-1 ring-slate-300 md:hidden"
            aria-expanded={open}
            aria-controls="dashboard-menu dashboard-account"
            onClick={() => setOpenOn(open ? null : pathname)}
          >
            Menu
          </button>
          <div id="dashboard-account" className={`${folded} w-full min-w-0 flex-col gap-2 border-t border-slate-200 pt-3 text-sm md:w-auto md:flex-1 md:flex-row md:items-center md:gap-4 md:border-0 md:pt-0`}>
            <div className="flex min-w-0 flex-wrap items-center gap-2 md:flex-nowrap">
              {organization ? (
                <Link href="/settings" prefetch={false} className="block min-w-0 truncate font-medium text-slate-900 hover:text-indigo-700 md:max-w-64" data-testid="organization-name">
                  {organization.name}
                  <span className="sr-only"> (organization settings)</span>
                </Link>
              ) : (
                <span className="block font-medium text-slate-600" data-testid="organization-name">No organization</span>
              )}
              {organizations.length > (organization ? 1 : 0) ? (
                // A button, not a change event: moving through the options with the keyboard must not switch. The server checks the membership.
                <form action={switchAction} key={organization?.id ?? "none"} className="flex shrink-0 items-center gap-1.5">
                  <label className="sr-only" htmlFor="switch-organization">Switch organization</label>
                  <select
                    id="switch-organization"
                    name="organizationId"
                    defaultValue={organization?.id ?? ""}
                    className="max-w-40 rounded-md border-0 py-1 pr-7 pl-2 text-sm ring-1 ring-slate-300"
                  >
                    {organization ? null : <option value="" disabled>Choose an organization</option>}
                    {organizations.map((choice) => (
                      <option key={choice.id} value={choice.id}>{choice.name}</option>
                    ))}
                  </select>
                  <button type="submit" className="rounded-md px-2 py-1 text-sm whitespace-nowrap text-slate-700 ring-1 ring-slate-300 hover:text-indigo-700">Switch</button>
                </form>
              ) : null}
              <Link href="/organizations/new" prefetch={false} className="text-xs whitespace-nowrap text-indigo-700 hover:underline">New organization</Link>
            </div>
            <div className="flex flex-wrap items-center gap-x-4 gap-y-2 md:ml-auto md:flex-nowrap">
              <div className="text-xs break-all text-slate-600 md:break-normal md:whitespace-nowrap" data-testid="signed-in-user">{email}{organization ? ` · ${organization.role}` : ""}</div>
              <form action={signOutAction} className="shrink-0">
                <button className="text-sm whitespace-nowrap text-slate-600 hover:text-slate-900">Sign out</button>
              </form>
            </div>
          </div>
        </div>
        <nav id="dashboard-menu" aria-label="Main" className={`${folded} flex-col gap-3 border-t border-slate-100 py-3 text-sm md:flex-row md:flex-nowrap md:gap-5 md:overflow-x-auto md:py-2`}>
          {items.map((item) => {
            const current = pathname === item.href || pathname.startsWith(`${item.href}/`);
            return (
              <Link
                key={item.href}
                href={item.href}
                prefetch={false}
                aria-current={current ? "page" : undefined}
                className={`whitespace-nowrap ${current ? "font-semibold text-indigo-700 underline underline-offset-4" : "text-slate-700 hover:text-indigo-700"}`}
              >
                {item.label}
              </Link>
            );
          })}
        </nav>
      </div>
    </header>
  );
}
