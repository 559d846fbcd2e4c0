"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

/** The main navigation; the current section is marked for sighted and screen-reader users alike. */
export function NavLinks({ items }: { items: ReadonlyArray<{ href: string; label: string }> }) {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="flex flex-wrap gap-4 text-sm">
      {items.map((item) => {
        const current = pathname === item.href || pathname.startsWith(`${item.href}/`);
        return (
          <Link
            key={item.href}
            href={item.href}
            aria-current={current ? "page" : undefined}
            className={current ? "font-semibold text-indigo-700 underline underline-offset-4" : "text-slate-700 hover:text-indigo-700"}
          >
            {item.label}
          </Link>
        );
      })}
    </nav>
  );
}
