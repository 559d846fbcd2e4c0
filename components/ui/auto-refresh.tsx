"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/** Re-renders the page's server components every `intervalMs` while `active` (e.g. a delivery is still pending). */
export function AutoRefresh({ active, intervalMs = 3000 }: { active: boolean; intervalMs?: number }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") router.refresh();
    }, intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs, router]);
  return active ? (
    <p className="text-xs text-slate-500" aria-live="off">
      Refreshing every {Math.round(intervalMs / 1000)} s while deliveries are waiting.
    </p>
  ) : null;
}
