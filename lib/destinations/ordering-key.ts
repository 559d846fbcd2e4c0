// A destination's ordering key, compiled when its destinations are loaded: the value it reads from a request
// (its body's value at a dotted path, or its external id). Deliveries to a destination with the same value go
// one at a time in order of receipt (the claim, lib/delivery/engine/sql/claim.ts); no value, no order to keep.

/** The request a key reads: its parsed body (as filters see it) and its external id. */
export interface KeyedRequest {
  body: unknown;
  externalId: string;
}

export type OrderingKeyReader = (request: KeyedRequest) => string | null;

/** Values longer than this are hashed down to it, so the index stays small whatever a body holds. */
const MAX_VALUE_LENGTH = 200;

type Step = string | number;

/** `data.items[0].id` → ["data", "items", 0, "id"]; the key's form was checked when it was saved. */
function stepsOf(path: string): Step[] {
  const steps: Step[] = [];
  for (const segment of path.split(".")) {
    const name = segment.match(/^[^[]*/)![0];
    if (name) steps.push(name);
    for (const [, index] of segment.matchAll(/\[(\d+)\]/g)) steps.push(Number(index));
  }
  return steps;
}

function valueText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value);
  return text.length <= MAX_VALUE_LENGTH ? text : `${text.slice(0, MAX_VALUE_LENGTH - 20)}…${text.length}`;
}

export function compileOrderingKey(key: string | null): OrderingKeyReader | null {
  if (!key) return null;
  if (key === "$externalId") return (request) => request.externalId;
  const steps = stepsOf(key);
  return (request) => {
    let at: unknown = request.body;
    for (const step of steps) {
      if (typeof step === "number") at = Array.isArray(at) ? at[step] : undefined;
      else at = at !== null && typeof at === "object" && !Array.isArray(at) && Object.hasOwn(at, step) ? (at as Record<string, unknown>)[step] : undefined;
      if (at === undefined) return null;
    }
    return valueText(at);
  };
}
