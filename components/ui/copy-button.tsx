"use client";

import { useState } from "react";

/** Copies `value` to the clipboard and says so. `accessibleName` replaces "label: value" for long values. */
export function CopyButton({ value, label = "Copy", accessibleName }: { value: string; label?: string; accessibleName?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="rounded-md px-2 py-1 text-xs font-medium text-indigo-700 ring-1 ring-indigo-200 hover:bg-indigo-50"
      aria-label={accessibleName ?? `${label}: ${value}`}
      onClick={async () => {
        await navigator.clipboard?.writeText(value).catch(() => undefined);
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      }}
    >
      {copied ? "Copied" : label}
    </button>
  );
}

/** A value in monospace with a copy button beside it. */
export function CopyableValue({ value, testId }: { value: string; testId?: string }) {
  return (
    <div className="flex min-w-0 items-center gap-2">
      <code data-testid={testId} className="min-w-0 flex-1 truncate rounded bg-slate-100 px-2 py-1 font-mono text-xs">
        {value}
      </code>
      <CopyButton value={value} />
    </div>
  );
}
