// Helpers for lib/destinations/filter-*.test.ts: a request to match, a filter that must compile or be refused.
import { compileFilter, type FilterMatch } from "@/lib/destinations/filter";
import type { FilterInput } from "@/lib/destinations/filter-input";

export function request(parts: Partial<FilterInput> = {}): FilterInput {
  return { body: undefined, headers: {}, query: {}, path: "/", ...parts };
}

export function compiled(filter: unknown): FilterMatch {
  const result = compileFilter(filter);
  if (!result.ok) throw new Error(`expected a valid filter, got ${result.path}: ${result.message}`);
  return result.match;
}

/** Whether `{body: bodyFilter}` matches a request with this body. */
export function bodyMatches(bodyFilter: unknown, body: unknown): boolean {
  return compiled({ body: bodyFilter })(request({ body }));
}

export function refusal(filter: unknown): { path: string; message: string } {
  const result = compileFilter(filter);
  if (result.ok) throw new Error(`expected ${JSON.stringify(filter)} to be refused`);
  return { path: result.path, message: result.message };
}
