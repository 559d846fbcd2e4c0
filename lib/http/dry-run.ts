import { ValidationError } from "@/lib/errors";

/** `?dryRun=true` (or 1): count only. Absent or false: act. */
export function dryRunParam(query: URLSearchParams): boolean {
  const value = query.get("dryRun")?.trim().toLowerCase();
  if (value === undefined || value === "" || value === "false" || value === "0") return false;
  if (value === "true" || value === "1") return true;
  throw new ValidationError("dryRun must be true or false.");
}
