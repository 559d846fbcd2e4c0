import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from "react";

const control = "mt-1 block w-full rounded-md border-0 px-2.5 py-1.5 text-sm ring-1 ring-slate-300 focus:ring-2 focus:ring-indigo-600 disabled:cursor-not-allowed disabled:bg-slate-100 disabled:text-slate-500";

/** The hint sits outside the label and describes the input: inside, it became part of the input's name. */
export function Field({ label, hint, ...props }: InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: ReactNode }) {
  const hintId = useId();
  return (
    <div>
      <label className="block text-sm font-medium text-slate-700">
        {label}
        <input className={control} aria-describedby={hint ? hintId : undefined} {...props} />
      </label>
      {hint ? <p id={hintId} className="mt-1 text-xs text-slate-500">{hint}</p> : null}
    </div>
  );
}

type Option = string | { value: string; label: string };

export function SelectField({ label, options, ...props }: SelectHTMLAttributes<HTMLSelectElement> & { label: string; options: readonly Option[] }) {
  return (
    <label className="block text-sm font-medium text-slate-700">
      {label}
      <select className={control} {...props}>
        {options.map((option) => {
          const { value, label: text } = typeof option === "string" ? { value: option, label: option } : option;
          return (
            <option key={value} value={value}>
              {text}
            </option>
          );
        })}
      </select>
    </label>
  );
}
