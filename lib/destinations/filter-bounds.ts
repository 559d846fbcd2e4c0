// A destination filter's size limits, and the check of each value of its document against them as it compiles.
import { isPlainObject } from "./filter-matchers";
import { fail, type FilterPathSegment as Segment } from "./filter-paths";

/** Nested objects and arrays, the root object being level 1. */
export const MAX_FILTER_DEPTH = 16;
/** Every JSON value in the document counts: objects, arrays and primitives (not keys). */
export const MAX_FILTER_NODES = 500;
/** UTF-8 bytes, for string values and for keys. */
export const MAX_FILTER_STRING_BYTES = 1024;
/** UTF-8 bytes of JSON.stringify(filter). */
export const MAX_FILTER_BYTES = 16 * 1024;
/** Entries of one `$in` or `$nin` list. */
export const MAX_FILTER_LIST_ITEMS = 200;

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** The bounds of one document, as the compiler walks it: a new one for each filter compiled (it counts the values). */
export class FilterBounds {
  private nodes = 0;

  /** Bounds and JSON-ness of one value of the document, before anything is built from it. */
  visit(value: unknown, path: readonly Segment[], depth: number): void {
    this.nodes += 1;
    if (this.nodes > MAX_FILTER_NODES) fail(path, `the filter holds more than ${MAX_FILTER_NODES} values`);
    switch (typeof value) {
      case "string":
        if (utf8Bytes(value) > MAX_FILTER_STRING_BYTES) fail(path, `a string is longer than ${MAX_FILTER_STRING_BYTES} bytes`);
        return;
      case "number":
        if (!Number.isFinite(value)) fail(path, "not a JSON value (a number must be finite)");
        return;
      case "boolean":
        return;
      case "object":
        if (value === null) return;
        if (!Array.isArray(value) && !isPlainObject(value)) fail(path, "not a JSON value");
        if (depth > MAX_FILTER_DEPTH) fail(path, `the filter nests objects and arrays deeper than ${MAX_FILTER_DEPTH} levels`);
        return;
      default:
        fail(path, "not a JSON value");
    }
  }

  checkName(name: string, path: readonly Segment[]): void {
    if (utf8Bytes(name) > MAX_FILTER_STRING_BYTES) fail(path, `a name is longer than ${MAX_FILTER_STRING_BYTES} bytes`);
  }
}
