"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useTransition } from "react";

/**
 * Re-renders the page's server components every `intervalMs` while `active` (e.g. a delivery is still
 * pending): one request per refresh (links on such pages do not prefetch, or each refresh would fetch
 * them all again), none while the tab is hidden, one at once when it is shown again, and none while
 * the previous refresh is still under way.
 */
export function AutoRefresh({ active, intervalMs = 3000 }: { active: boolean; intervalMs?: number }) {
  const router = useRouter();
  const [refreshing, startRefresh] = useTransition();
  const busy = useRef(false);
  useEffect(() => {
    busy.current = refreshing;
  }, [refreshing]);
  useEffect(() => {
    if (!active) return;
    let timer: ReturnType<typeof setInterval> | undefined;
    const refresh = () => {
      if (!busy.current) startRefresh(() => router.refresh());
    };
    const start = () => {
      timer ??= setInterval(refresh, intervalMs);
    };
    const stop = () => {
      clearInterval(timer);
      timer = undefined;
    };
    const onVisibilityChange = () => {
      if (document.visibilityState !== "visible") return stop();
      refresh();
      start();
    };
    if (document.visibilityState === "visible") start();
    document.addEventListener("visibilitychange", onVisibilityChange);
    return () => {
      stop();
      document.removeEventListener("visibilitychange", onVisibilityChange);
    };
  }, [active, intervalMs, router]);
  return active ? (
    <p className="text-xs text-slate-600" aria-live="off">
      Refreshing every {Math.round(intervalMs / 1000)} s while deliveries are waiting.
    </p>
  ) : null;
}
