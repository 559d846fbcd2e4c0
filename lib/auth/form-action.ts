import { isRedirectError } from "next/dist/client/components/redirect-error";
import { DomainError } from "@/lib/errors";

export type FormState<T = Record<string, unknown>> = { error?: string; ok?: boolean } & Partial<T>;

/** Runs a form's work; domain errors become a message the form shows, redirects pass through. */
export async function runFormAction<T>(work: () => Promise<FormState<T>>): Promise<FormState<T>> {
  try {
    return await work();
  } catch (error) {
    if (isRedirectError(error)) throw error;
    if (error instanceof DomainError) return { error: error.message } as FormState<T>;
    console.error("[dashboard] action failed", error);
    return { error: "Something went wrong on our side; nothing was changed." } as FormState<T>;
  }
}
