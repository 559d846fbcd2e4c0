import { describe, expect, it } from "vitest";
import { takeLook, type ParkedLook } from "./endpoint-slots";

describe("takeLook", () => {
  it("tells only the first of an endpoint's callers in a batch to hand slots on", () => {
    const looks = new Map<string, ParkedLook>([
      ["ep_a", { needed: true, parked: true }],
      ["ep_b", { needed: false, parked: true }],
    ]);
    expect(takeLook(looks, "ep_a")).toEqual({ needed: true, parked: true });
    expect(takeLook(looks, "ep_a")).toEqual({ needed: false, parked: true });
    expect(takeLook(looks, "ep_a")).toEqual({ needed: false, parked: true });
    expect(takeLook(looks, "ep_b")).toEqual({ needed: false, parked: true });
  });
});
