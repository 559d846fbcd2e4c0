import type { ReactNode } from "react";

export function Alert({ tone = "error", children }: { tone?: "error" | "success" | "warning"; children: ReactNode }) {
  const styles = {
    error: "bg-red-50 text-red-800 ring-red-200",
    success: "bg-emerald-50 text-emerald-800 ring-emerald-200",
    warning: "bg-amber-50 text-amber-900 ring-amber-200",
  }[tone];
  return (
    <div role={tone === "error" ? "alert" : "status"} className={`rounded-md px-3 py-2 text-sm ring-1 ${styles}`}>
      {children}
    </div>
  );
}
