import { describe, expect, it } from "vitest";
import { processSingleton } from "./process-singleton";

describe("processSingleton", () => {
  it("makes each key's object once and hands every caller that one", () => {
    let made = 0;
    const first = processSingleton("test: counted", () => ({ made: ++made }));
    const second = processSingleton("test: counted", () => ({ made: ++made }));
    expect(second).toBe(first);
    expect(made).toBe(1);
  });

  it("keeps one registry for the process, so a second copy of the module finds the same objects", () => {
    const created = processSingleton("test: shared", () => ({}));
    const registry = (globalThis as Record<symbol, Map<string, unknown>>)[Symbol.for("webhook-inbox.process-singletons")];
    expect(registry?.get("test: shared")).toBe(created);
  });
});
