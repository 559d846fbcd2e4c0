/** A whole number > 0 from an environment variable, or the fallback when unset or not one. */
export function positiveIntegerEnv(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return value && Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
}

/** A number > 0 from an environment variable, or the fallback when unset or not one. */
export function positiveNumberEnv(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return value && Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
}
