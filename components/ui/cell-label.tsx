// Tables stack into cards below the md breakpoint (no sideways scrolling at 390 px): their header row
// is hidden there, so each cell names itself. Hidden from md up, where the column header does.
import type { ReactNode } from "react";

export function CellLabel({ children }: { children: ReactNode }) {
  return <span className="mr-1.5 text-xs font-normal text-slate-500 md:hidden">{children}</span>;
}

/** Classes that make a table, its body and rows stack below md (rows become two-column grids). */
export const stacked = {
  table: "w-full text-left text-sm max-md:block",
  head: "text-xs text-slate-500 max-md:hidden",
  body: "divide-y divide-slate-200 max-md:block",
  row: "align-top max-md:grid max-md:grid-cols-2 max-md:gap-x-3 max-md:gap-y-1 max-md:py-3",
  cell: "max-md:block max-md:p-0",
} as const;
