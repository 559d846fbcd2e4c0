import type { ButtonHTMLAttributes } from "react";

// Hover colours apply only while enabled, and a disabled button is faded with a not-allowed cursor:
// a disabled red button must not look like one that would act.
const variants = {
  primary: "bg-indigo-600 text-white enabled:hover:bg-indigo-500",
  secondary: "bg-white text-slate-800 ring-1 ring-slate-300 enabled:hover:bg-slate-50",
  danger: "bg-red-600 text-white enabled:hover:bg-red-500",
} as const;

export function Button({ variant = "primary", className = "", ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: keyof typeof variants }) {
  return (
    <button
      className={`inline-flex items-center justify-center rounded-md px-3 py-1.5 text-sm font-medium shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-50 disabled:shadow-none ${variants[variant]} ${className}`}
      {...props}
    />
  );
}
