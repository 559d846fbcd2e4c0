import { isRedirectError } from "next/dist/client/components/redirect-error";
import { asServiceUnavailable, DomainError } from "@/lib/errors";
import { describeError } from "@/lib/logging/describe-error";
import { formMessage } from "./form-message";
import { logger } from "@/lib/logging/logger";

export type FormState<T = Record<string, unknown>> = { error?: string; ok?: boolean; values?: Record<string, string> } & Partial<T>;

const SECRET_FIELDS = /password|secret/i;

/** What the person typed, minus secrets, so a refused form comes back filled in. */
function typedValues(form?: FormData): Record<string, string> {
  const values: Record<string, string> = {};
  form?.forEach((value, name) => {
    if (typeof value === "string" && !SECRET_FIELDS.test(name) && !name.startsWith("$")) values[name] = value;
  });
  return values;
}

/** Runs a form's work; domain errors become a message the form shows (with what was typed), redirects pass through. */
export async function runFormAction<T>(work: () => Promise<FormState<T>>, form?: FormData): Promise<FormState<T>> {
  try {
    const state = await work();
    return state.error ? { ...state, values: typedValues(form) } : state;
  } catch (error) {
    if (isRedirectError(error)) throw error;
    const known = error instanceof DomainError ? error : asServiceUnavailable(error); // database down: "temporarily unavailable"
    if (known) return { error: formMessage(known), values: typedValues(form) } as FormState<T>;
    logger.error(`[dashboard] action failed: ${describeError(error)}`);
    return { error: "Something went wrong on our side; nothing was changed.", values: typedValues(form) } as FormState<T>;
  }
}
