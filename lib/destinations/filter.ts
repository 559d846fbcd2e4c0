// The destination filter compiler: validates a filter document once and compiles it into matching closures.
/**
 * Destination filters (docs/api.md, "Destinations"): a JSON document matched against
 * `{body, headers, query, path}` of an incoming request. Where the spec is silent this follows
 * Hookdeck's filter syntax (https://hookdeck.com/docs/filters).
 *
 * `compileFilter` validates the whole document once, when a destination is saved, and turns it into a
 * tree of closures; matching a request runs those closures and never reads the filter document again.
 *
 * Semantics
 * - The filter is an object whose keys are `body`, `headers`, `query`, `path`, `$or`, `$and`, `$not`.
 *   `{}`, `null` and `undefined` match every request. Keys in one object are ANDed.
 * - A plain value (string, number, boolean, null) matches a value strictly equal to it (no type
 *   coercion: `1000` does not match `"1000"`), or an array holding such an element. `null` matches
 *   JSON null only, not an absent field.
 * - A plain object matches when each of its fields matches (other fields of the value are ignored).
 *   Fields are read with `Object.hasOwn` only: `__proto__`, `constructor` and the like are data keys.
 *   Reading a field of anything but an object gives `undefined`, so `{"$exist": false}` below an absent
 *   parent matches. Against an array, the object matches when any element matches it.
 * - A plain array matches an array that contains, for each of its entries, an element matching that
 *   entry (order and extra elements ignored); it never matches a non-array.
 * - Keys starting with `$` are operators; an unknown one is an error. Value operators (`$eq` … `$exist`)
 *   test the value as a whole — an array is not searched element by element; `$contains` does that.
 *   They may sit together (ANDed, e.g. a range) and beside `$or/$and/$not`, but not beside field names.
 *   `$eq`, `$neq`, `$in`, `$nin`, `$contains` take literal JSON: objects and arrays there compare by
 *   deep equality (key order ignored), and `$`-keys inside them are plain data.
 *   - `$eq` / `$neq`: deep equal / not; `$neq` matches an absent value.
 *   - `$in` / `$nin`: a list (at most MAX_FILTER_LIST_ITEMS, filter-bounds.ts) of values; `$nin` matches
 *     an absent value.
 *   - `$gt $gte $lt $lte`: a number or a string; the value must be of the same type (strings compare by
 *     UTF-16 code units, so ISO-8601 timestamps of one format compare chronologically; header and query
 *     values are strings, so compare them with strings).
 *   - `$startsWith` / `$endsWith`: a string; the value must be a string.
 *   - `$contains`: a substring of a string value, or an element (deep equal) of an array value.
 *   - `$exist`: `true` when the value is present (JSON null counts as present), `false` when absent.
 *   - `$not`: a filter; `$or` / `$and`: a non-empty list of filters, each applied to the same value.
 * - `headers`: names are lower-cased on the request side; names in the filter are lower-cased when
 *   compiled, values stay case-sensitive.
 * - `query`: a name given once is a string, a repeated name a string[] in order (see toFilterQuery in
 *   filter-input.ts); a plain string matches either shape.
 * - `body`: see parseFilterBody (filter-input.ts).
 *
 * Bounds on the document's size: see filter-bounds.ts. Error paths: see filter-paths.ts.
 */
import { FilterBounds, MAX_FILTER_BYTES, MAX_FILTER_LIST_ITEMS, utf8Bytes } from "./filter-bounds";
import type { FilterInput } from "./filter-input";
import { allOf, isPlainObject, isRecord, readField, type Matcher } from "./filter-matchers";
import { fail, formatFilterPath, InvalidFilter, type FilterPathSegment as Segment } from "./filter-paths";

/** A filter document as stored: any JSON value, validated by compileFilter. */
export type Filter = unknown;

export type FilterMatch = (input: FilterInput) => boolean;

export type CompiledFilter = { ok: true; match: FilterMatch } | { ok: false; path: string; message: string };

/** Where a filter object sits: the root, the headers or query objects, or anywhere below a field. */
type Mode = "root" | "headers" | "query" | "value";

const ROOT_FIELDS = new Set(["body", "headers", "query", "path"]);
const LOGICAL_OPERATORS = new Set(["$or", "$and", "$not"]);
const VALUE_OPERATORS = new Set([
  "$eq", "$neq", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$startsWith", "$endsWith", "$contains", "$exist",
]);

const matchEverything: FilterMatch = () => true;

function describeMode(mode: Exclude<Mode, "value">): string {
  return mode === "root" ? "the whole request; put it under body, headers, query or path" : `the ${mode} object; put it under a name`;
}

class FilterCompiler {
  private readonly bounds = new FilterBounds();

  compile(filter: unknown, path: readonly Segment[], depth: number, mode: Mode): Matcher {
    this.bounds.visit(filter, path, depth);
    if (mode !== "value" && !isPlainObject(filter)) {
      fail(path, mode === "root" ? "a filter must be a JSON object" : `the ${mode} filter must be an object of names`);
    }
    if (Array.isArray(filter)) return this.compileContainsAll(filter, path, depth);
    if (isPlainObject(filter)) return this.compileObject(filter, path, depth, mode);
    const expected = filter as string | number | boolean | null;
    return (value) => value === expected || (Array.isArray(value) && value.some((element) => element === expected));
  }

  private compileContainsAll(entries: readonly unknown[], path: readonly Segment[], depth: number): Matcher {
    const wanted = entries.map((entry, index) => this.compile(entry, [...path, index], depth + 1, "value"));
    return (value) => Array.isArray(value) && wanted.every((matcher) => value.some((element) => matcher(element)));
  }

  private compileObject(filter: Record<string, unknown>, path: readonly Segment[], depth: number, mode: Mode): Matcher {
    const fields: Array<readonly [string, Matcher]> = [];
    const operators: Matcher[] = [];
    let firstField: string | undefined;
    let firstValueOperator: string | undefined;
    for (const [key, child] of Object.entries(filter)) {
      const childPath = [...path, key];
      this.bounds.checkName(key, childPath);
      if (key.startsWith("$")) {
        if (LOGICAL_OPERATORS.has(key)) {
          operators.push(this.compileLogical(key, child, childPath, depth + 1, mode));
          continue;
        }
        if (!VALUE_OPERATORS.has(key)) fail(childPath, `unknown operator ${key}`);
        if (mode !== "value") fail(childPath, `the operator ${key} cannot apply to ${describeMode(mode)}`);
        if (firstField !== undefined) fail(childPath, `the operator ${key} cannot sit beside the field ${JSON.stringify(firstField)}`);
        firstValueOperator ??= key;
        operators.push(this.compileValueOperator(key, child, childPath, depth + 1));
      } else {
        if (mode === "root" && !ROOT_FIELDS.has(key)) {
          fail(childPath, `unknown top-level key ${JSON.stringify(key)}; expected body, headers, query, path, $or, $and or $not`);
        }
        if (firstValueOperator !== undefined) fail(childPath, `the field ${JSON.stringify(key)} cannot sit beside the operator ${firstValueOperator}`);
        firstField ??= key;
        const childMode: Mode = mode === "root" && (key === "headers" || key === "query") ? key : "value";
        const name = mode === "headers" ? key.toLowerCase() : key;
        fields.push([name, this.compile(child, childPath, depth + 1, childMode)] as const);
      }
    }
    if (fields.length === 0) return allOf(operators);
    const rest = allOf(operators);
    const matchesOne: Matcher = (value) => fields.every(([name, matcher]) => matcher(readField(value, name))) && rest(value);
    if (mode !== "value") return matchesOne;
    return (value) => (Array.isArray(value) ? value.some(matchesOne) : matchesOne(value));
  }

  private compileLogical(operator: string, argument: unknown, path: readonly Segment[], depth: number, mode: Mode): Matcher {
    if (operator === "$not") {
      const inner = this.compile(argument, path, depth, mode);
      return (value) => !inner(value);
    }
    this.bounds.visit(argument, path, depth);
    if (!Array.isArray(argument)) fail(path, `${operator} takes a list of filters`);
    if (argument.length === 0) fail(path, `${operator} needs at least one filter`);
    const branches = argument.map((branch, index) => this.compile(branch, [...path, index], depth + 1, mode));
    return operator === "$or"
      ? (value) => branches.some((branch) => branch(value))
      : (value) => branches.every((branch) => branch(value));
  }

  private compileValueOperator(operator: string, argument: unknown, path: readonly Segment[], depth: number): Matcher {
    switch (operator) {
      case "$eq":
        return this.compileLiteral(argument, path, depth);
      case "$neq": {
        const equals = this.compileLiteral(argument, path, depth);
        return (value) => !equals(value);
      }
      case "$in":
      case "$nin": {
        const isIn = this.compileList(operator, argument, path, depth);
        return operator === "$in" ? isIn : (value) => !isIn(value);
      }
      case "$gt":
      case "$gte":
      case "$lt":
      case "$lte":
        return this.compileComparison(operator, argument, path, depth);
      case "$startsWith":
      case "$endsWith": {
        this.bounds.visit(argument, path, depth);
        if (typeof argument !== "string") fail(path, `${operator} takes a string`);
        return operator === "$startsWith"
          ? (value) => typeof value === "string" && value.startsWith(argument)
          : (value) => typeof value === "string" && value.endsWith(argument);
      }
      case "$contains": {
        const equals = this.compileLiteral(argument, path, depth);
        if (typeof argument === "string") {
          return (value) => (typeof value === "string" ? value.includes(argument) : Array.isArray(value) && value.some(equals));
        }
        return (value) => Array.isArray(value) && value.some(equals);
      }
      case "$exist": {
        this.bounds.visit(argument, path, depth);
        if (typeof argument !== "boolean") fail(path, "$exist takes true or false");
        return argument ? (value) => value !== undefined : (value) => value === undefined;
      }
      default:
        return fail(path, `unknown operator ${operator}`);
    }
  }

  private compileList(operator: string, argument: unknown, path: readonly Segment[], depth: number): Matcher {
    this.bounds.visit(argument, path, depth);
    if (!Array.isArray(argument)) fail(path, `${operator} takes a list of values`);
    if (argument.length > MAX_FILTER_LIST_ITEMS) fail(path, `${operator} takes at most ${MAX_FILTER_LIST_ITEMS} values`);
    // Primitives are looked up in a Set (same result as === for JSON values); objects and arrays by deep equality.
    const primitives = new Set<unknown>();
    const structured: Matcher[] = [];
    argument.forEach((entry, index) => {
      const equals = this.compileLiteral(entry, [...path, index], depth + 1);
      if (entry !== null && typeof entry === "object") structured.push(equals);
      else primitives.add(entry);
    });
    return (value) => primitives.has(value) || structured.some((equals) => equals(value));
  }

  private compileComparison(operator: string, argument: unknown, path: readonly Segment[], depth: number): Matcher {
    this.bounds.visit(argument, path, depth);
    if (typeof argument !== "number" && typeof argument !== "string") fail(path, `${operator} takes a number or a string`);
    const type = typeof argument;
    const bound = argument;
    const sameType = (value: unknown): value is number | string => typeof value === type;
    switch (operator) {
      case "$gt":
        return (value) => sameType(value) && value > bound;
      case "$gte":
        return (value) => sameType(value) && value >= bound;
      case "$lt":
        return (value) => sameType(value) && value < bound;
      default:
        return (value) => sameType(value) && value <= bound;
    }
  }

  /** Deep equality with a literal; the literal is captured in closures, so later edits to the filter change nothing. */
  private compileLiteral(literal: unknown, path: readonly Segment[], depth: number): Matcher {
    this.bounds.visit(literal, path, depth);
    if (Array.isArray(literal)) {
      const items = literal.map((item, index) => this.compileLiteral(item, [...path, index], depth + 1));
      return (value) => Array.isArray(value) && value.length === items.length && items.every((equals, index) => equals(value[index]));
    }
    if (isPlainObject(literal)) {
      const fields = Object.entries(literal).map(([name, item]) => {
        const itemPath = [...path, name];
        this.bounds.checkName(name, itemPath);
        return [name, this.compileLiteral(item, itemPath, depth + 1)] as const;
      });
      return (value) =>
        isRecord(value) &&
        Object.keys(value).length === fields.length &&
        fields.every(([name, equals]) => Object.hasOwn(value, name) && equals(value[name]));
    }
    const expected = literal;
    return (value) => value === expected;
  }
}

/**
 * Validates the whole filter and compiles it. `{}`, `null` and `undefined` match every request.
 * On error, `path` names the first problem (see the path notation in filter-paths.ts) and `message` says what it is.
 */
export function compileFilter(filter: unknown): CompiledFilter {
  if (filter === null || filter === undefined) return { ok: true, match: matchEverything };
  let root: Matcher;
  try {
    root = new FilterCompiler().compile(filter, [], 1, "root");
  } catch (error) {
    if (error instanceof InvalidFilter) return { ok: false, path: formatFilterPath(error.segments), message: error.message };
    return { ok: false, path: "", message: "the filter could not be read as JSON" };
  }
  // After the walk: its bounds keep this stringify small and free of cycles.
  const bytes = utf8Bytes(JSON.stringify(filter));
  if (bytes > MAX_FILTER_BYTES) return { ok: false, path: "", message: `the filter is ${bytes} bytes as JSON; at most ${MAX_FILTER_BYTES}` };
  return {
    ok: true,
    match: (input) => {
      // A body is whatever the caller parsed (getters, proxies): anything odd is no match, never a throw.
      try {
        return root(input) === true;
      } catch {
        return false;
      }
    },
  };
}
