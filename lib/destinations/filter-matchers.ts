// The building blocks of a compiled destination filter's closures: JSON object tests, own-field reads, ANDing matchers.

/** One compiled piece of a filter: whether a value (of the request, or below it) matches. */
export type Matcher = (value: unknown) => boolean;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Own data only: a request can never make a filter read Object.prototype. */
export function readField(value: unknown, name: string): unknown {
  return isRecord(value) && Object.hasOwn(value, name) ? value[name] : undefined;
}

export function allOf(matchers: readonly Matcher[]): Matcher {
  if (matchers.length === 0) return () => true;
  if (matchers.length === 1) return matchers[0]!;
  return (value) => matchers.every((matcher) => matcher(value));
}
