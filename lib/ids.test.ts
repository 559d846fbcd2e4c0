import { describe, expect, it } from "vitest";
import { NotFoundError } from "@/lib/errors";
import { idOrNotFound, isId, newId, timeOrderedIdFloor } from "./ids";

describe("newId", () => {
  it("makes prefixed 25-character base-36 ids, all different across many refills of the random pool", () => {
    const ids = Array.from({ length: 5_000 }, () => newId("dlv"));
    for (const id of ids) expect(id).toMatch(/^dlv_[0-9a-z]{25}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("spreads its values over the whole 128-bit range", () => {
    // The leading base-36 digit of a uniform 128-bit value takes many values; a pool read as zeros would not.
    const leading = new Set(Array.from({ length: 2_000 }, () => newId("ep").slice(3, 5)));
    expect(leading.size).toBeGreaterThan(50);
  });
});

describe("delivery ids", () => {
  it("begin with their time: they sort by when they were made, above every id of the random format", async () => {
    const before = Date.now();
    const first = Array.from({ length: 500 }, () => newId("dlv"));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = newId("dlv");
    for (const id of first) {
      expect(id).toMatch(/^dlv_[0-9a-z]{25}$/);
      expect(id < later).toBe(true);
      expect(id >= timeOrderedIdFloor("dlv", before)).toBe(true);
    }
    expect(later >= timeOrderedIdFloor("dlv", before + 5)).toBe(true);
    expect(later < timeOrderedIdFloor("dlv", Date.now() + 1)).toBe(true);
    // The largest random 128-bit id, and one made in the year 5000, stay on their side of the marker.
    expect(`dlv_${(2n ** 128n - 1n).toString(36)}` < timeOrderedIdFloor("dlv", 0)).toBe(true);
    expect(timeOrderedIdFloor("dlv", Date.UTC(5000, 0)).length).toBe(first[0]!.length - 15);
  });

  it("keep ~77 random bits after the time: ids made in the same millisecond all differ", () => {
    const ids = Array.from({ length: 5_000 }, () => newId("dlv"));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(-15, -13))).size).toBeGreaterThan(500);
  });
});

describe("isId and idOrNotFound", () => {
  it("accept exactly what newId makes for that prefix, and nothing else reaches a query", () => {
    const id = newId("dlv");
    expect(isId("dlv", id)).toBe(true);
    expect(idOrNotFound("dlv", id, "Delivery")).toBe(id);
    for (const bad of [newId("ep"), `${id}x`, id.slice(0, -1), id.toUpperCase(), `${id}\u0000`, "a\u0000b", "dlv_x", "", " " + id, "../dlv", "dlv_" + "é".repeat(25)]) {
      expect(isId("dlv", bad), JSON.stringify(bad)).toBe(false);
      expect(() => idOrNotFound("dlv", bad, "Delivery")).toThrow(NotFoundError);
    }
    expect(() => idOrNotFound("ep", null, "Endpoint")).toThrow("Endpoint not found.");
  });
});
