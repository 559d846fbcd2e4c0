// Cursors are parsed strictly: only exactly what encodeCursor writes is accepted, anything else is a
// 400 before a query runs (a crafted ["1","x"] used to reach PostgreSQL as a timestamptz: a 500).
import { describe, expect, it } from "vitest";
import { ValidationError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { decodeCursor, encodeCursor } from "./pagination";

const crafted = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const dlv = newId("dlv");

describe("decodeCursor", () => {
  it("reads back what encodeCursor wrote, in both time precisions", () => {
    expect(decodeCursor(encodeCursor("2026-12-01T16:39:07.123456Z", dlv), "dlv")).toEqual({
      at: new Date("2026-12-01T16:39:07.123Z"), atText: "2026-12-01T16:39:07.123456Z", id: dlv,
    });
    const ep = newId("ep");
    const at = new Date("2026-02-28T23:59:59.999Z");
    expect(decodeCursor(encodeCursor(at, ep), "ep")).toEqual({ at, atText: at.toISOString(), id: ep });
    expect(decodeCursor(null, "dlv")).toBeNull();
    expect(decodeCursor("", "dlv")).toBeNull();
  });

  it("refuses every other shape with a 400", () => {
    const bad = [
      crafted(["1", "x"]),
      crafted(["1", dlv]),
      crafted(["2026-12-01T16:39:07.123456Z", "x"]),
      crafted(["2026-12-01T16:39:07.123456Z", newId("ep")]), // another list's id
      crafted(["2026-12-01T16:39:07.123456Z", `${dlv}\u0000`]),
      crafted(["2026-12-01T16:39:07Z", dlv]), // no fraction: not ours
      crafted(["2026-12-01 16:39:07.123456Z", dlv]),
      crafted(["2026-12-01T16:39:07.123456+00:00", dlv]),
      crafted(["2026-02-30T00:00:00.000Z", dlv]), // Date would take it as March 2
      crafted(["2026-13-01T00:00:00.000Z", dlv]),
      crafted(["2026-12-01T24:00:00.000Z", dlv]),
      crafted(["0000-01-01T00:00:00.000Z", dlv]),
      crafted(["2026-12-01T16:39:07.123456Z", dlv, "extra"]),
      crafted(["2026-12-01T16:39:07.123456Z"]),
      crafted({ at: "2026-12-01T16:39:07.123456Z", id: dlv }),
      crafted([1764607147, dlv]),
      crafted("2026-12-01T16:39:07.123456Z"),
      crafted(null),
      "%00", "garbage!", "a".repeat(10_000), "WyIxIiwieCJd=", Buffer.from("[\"a\"").toString("base64url"),
    ];
    for (const cursor of bad) {
      expect(() => decodeCursor(cursor, "dlv"), cursor.slice(0, 80)).toThrow(ValidationError);
    }
  });
});
