// Where a destination filter is wrong: a refused value's path, the error that carries it, how it is written.
/*
 * Error paths: from the filter's root, field names joined with `.`, list positions as `[i]`, e.g.
 * `body.data.amount.$gte` or `$or[1].body.type`. A name that is empty, longer than 64 characters or
 * holds `.`, `[`, `]`, `"`, whitespace or a control character is written as `["name"]` (cut to its
 * first 64 characters with `…`). The root itself (a filter that is not an object, or too large) is `""`.
 * Errors are checked in document order, the serialized size last.
 */

/** One step from the filter's root: a field name or a list position. */
export type FilterPathSegment = string | number;

const SIMPLE_NAME = /^[^.[\]"\s\p{Cc}]{1,64}$/u;
const SHOWN_NAME_LENGTH = 64;

export function formatFilterPath(segments: readonly FilterPathSegment[]): string {
  let path = "";
  for (const segment of segments) {
    if (typeof segment === "number") path += `[${segment}]`;
    else if (SIMPLE_NAME.test(segment)) path += path === "" ? segment : `.${segment}`;
    else if (segment.length > SHOWN_NAME_LENGTH) path += `[${JSON.stringify(segment.slice(0, SHOWN_NAME_LENGTH)).slice(0, -1)}…"]`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

/** Thrown while compiling, caught by compileFilter: the path of the value refused and why. */
export class InvalidFilter extends Error {
  constructor(readonly segments: readonly FilterPathSegment[], message: string) {
    super(message);
  }
}

export function fail(segments: readonly FilterPathSegment[], message: string): never {
  throw new InvalidFilter(segments, message);
}
