// Colour and text together: the word carries the meaning, the colour only helps scanning.
const STYLES: Record<string, { label: string; className: string }> = {
  pending: { label: "Pending", className: "bg-amber-50 text-amber-900 ring-amber-300" },
  delivering: { label: "Delivering", className: "bg-sky-50 text-sky-900 ring-sky-300" },
  delivered: { label: "Delivered", className: "bg-emerald-50 text-emerald-900 ring-emerald-300" },
  dead: { label: "Dead", className: "bg-red-50 text-red-800 ring-red-300" },
  // Stored, but no destination's filter took it.
  filtered: { label: "Filtered", className: "bg-slate-50 text-slate-700 ring-slate-300" },
};

/** Why a dead delivery is dead, in words (API.md `deadReason`). */
export const DEAD_REASON_TEXT: Record<string, string> = {
  exhausted: "Failed: its attempts were used up",
  rejected: "Failed: the destination refused it as final",
  buried: "Buried by a person or API key; nothing failed",
};

// Buried is not failed: a buried delivery is told apart from a failed one by word and colour.
const BURIED = { label: "Buried", className: "bg-slate-100 text-slate-800 ring-slate-400" };

export function StatusBadge({ status, deadReason }: { status: string; deadReason?: string | null }) {
  const style = (status === "dead" && deadReason === "buried" ? BURIED : STYLES[status]) ?? { label: status, className: "bg-slate-50 text-slate-700 ring-slate-300" };
  return (
    <span data-status={status} data-dead-reason={status === "dead" ? (deadReason ?? undefined) : undefined} className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${style.className}`}>
      {style.label}
    </span>
  );
}
