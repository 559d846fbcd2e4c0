import { describe, expect, it } from "vitest";
import { newId, timeOrderedIdFloor } from "@/lib/ids";
import { batchIdBounds, batchIdRange, boundsShape, fromWeek, idBoundsParams, splitOlder, statementPerWeek, weekStartOf, weeksAfter, withinIdBounds, type BoundsShape } from "./batch-id-range";

describe("a batch's id range", () => {
  it("is the least and greatest of the batch's delivery ids, in any order", () => {
    const ids = Array.from({ length: 20 }, () => newId("dlv"));
    const sorted = [...ids].sort();
    expect(batchIdRange([ids[7]!, ...ids.reverse()])).toEqual({ first: sorted[0], last: sorted.at(-1) });
    const one = newId("dlv");
    expect(batchIdRange([one])).toEqual({ first: one, last: one });
  });

  it("is none when an id is not named, not a delivery id newId made, or there are none: the statement then reads every week", () => {
    const id = newId("dlv");
    expect(batchIdRange([id, null])).toBeNull();
    expect(batchIdRange([id, "dlv_manual"])).toBeNull();
    expect(batchIdRange([id, "dlv_" + "Z".repeat(25)])).toBeNull();
    expect(batchIdRange([id, newId("ep")])).toBeNull();
    expect(batchIdRange([])).toBeNull();
  });

  it("bounds a column by the range, or from the floor up in the statement made for a batch without one", () => {
    expect(withinIdBounds({ kind: "range", week: "" }, "d.id", "$6", "$7")).toBe("and d.id between $6::text and $7::text");
    expect(withinIdBounds({ kind: "from", week: "" }, "d.id", "$6", "$7")).toBe("and d.id >= $6::text");
    expect(withinIdBounds({ kind: "from", week: "" }, "d.id", "$3")).toBe("and d.id >= $3::text");
    expect(() => withinIdBounds({ kind: "range", week: "" }, "d.id", "$6")).toThrow(/needs its last/);
    const week = weekStartOf(newId("dlv"));
    expect(withinIdBounds({ kind: "range", week }, "d.id", "$6", "$7")).toBe(`and d.id between $6::text and $7::text and d.id >= '${week}'`);
    expect(withinIdBounds({ kind: "from", week }, "p.id", "$6", "$7")).toBe(`and p.id >= $6::text and p.id >= '${week}'`);
  });

  it("starts a week where its partitions do, Monday 00:00 UTC, for an id or a floor; for anything else, nowhere", () => {
    const monday = Date.UTC(2026, 10, 30); // Monday 2026-11-30
    const week = timeOrderedIdFloor("dlv", monday);
    for (const at of [monday, monday + 1, monday + 3.5 * 86_400_000, monday + 7 * 86_400_000 - 1]) {
      expect(weekStartOf(timeOrderedIdFloor("dlv", at) + "0".repeat(15))).toBe(week);
      expect(weekStartOf(timeOrderedIdFloor("dlv", at))).toBe(week);
    }
    expect(weekStartOf(timeOrderedIdFloor("dlv", monday - 1))).toBe(timeOrderedIdFloor("dlv", monday - 7 * 86_400_000));
    expect(weekStartOf(timeOrderedIdFloor("dlv", monday + 7 * 86_400_000))).toBe(timeOrderedIdFloor("dlv", monday + 7 * 86_400_000));
    // Older, random delivery ids sort below every time-ordered one, and a floor of '' names no week.
    for (const none of ["", "dlv_", "dlv_3k9x", "dlv_" + "f".repeat(25), newId("ep")]) expect(weekStartOf(none)).toBe("");
    expect(weeksAfter(timeOrderedIdFloor("dlv", monday + 3 * 86_400_000), 6)).toBe(timeOrderedIdFloor("dlv", monday + 42 * 86_400_000));
    expect(weeksAfter("", 6)).toBe("");
    expect(fromWeek("d.id", "")).toBe("");
    expect(() => fromWeek("d.id", "dlv_g0'; drop table x")).toThrow(/not the start of a week/);
  });

  it("sets apart what reaches back past the week before the newest's, so a shared batch's statement does not", () => {
    const day = 86_400_000;
    const monday = Date.UTC(2026, 10, 30);
    const at = (ms: number, n: number) => timeOrderedIdFloor("dlv", ms) + String(n).padStart(15, "0");
    const newest = at(monday + 2 * day, 1);
    const lastWeek = at(monday - 6 * day, 2); // the week before: kept with the newest
    const older = at(monday - 8 * day, 3); // two weeks back
    const legacy = "dlv_" + "3".repeat(25); // made before ids began with their time: below every week
    const items = [older, newest, null, lastWeek, legacy, timeOrderedIdFloor("dlv", monday - 7 * day), ""];
    expect(splitOlder(items, (id) => id)).toEqual({
      recent: [newest, null, lastWeek, timeOrderedIdFloor("dlv", monday - 7 * day)],
      older: [older, legacy, ""],
    });
    // Nothing to set apart without a time-ordered id, or when all are recent.
    expect(splitOlder([null, legacy], (id) => id)).toEqual({ recent: [null, legacy], older: [] });
    expect(splitOlder([newest, lastWeek], (id) => id)).toEqual({ recent: [newest, lastWeek], older: [] });
    expect(splitOlder([], (id: string) => id)).toEqual({ recent: [], older: [] });
  });

  it("makes each statement text once per shape of its bounds, given the shapes only", () => {
    const [a, b] = [newId("dlv"), newId("dlv")].sort();
    const lastWeek = timeOrderedIdFloor("dlv", Date.now() - 7 * 86_400_000);
    let made = 0;
    const text = statementPerWeek((own: BoundsShape, other: BoundsShape | null) => (made++, `${own.kind} ${own.week} / ${other ? `${other.kind} ${other.week}` : "none"}`));
    const range = { kind: "range", first: a!, last: b! } as const;
    const texts = [
      text(range, null),
      text({ kind: "range", first: b!, last: b! }, null), // another range in the same week: the same text
      text(range, { kind: "from", floor: lastWeek }),
      text({ kind: "from", floor: a! }, null),
      text({ kind: "from", floor: lastWeek }, null),
    ];
    expect(texts).toEqual([
      `range ${weekStartOf(a!)} / none`,
      `range ${weekStartOf(a!)} / none`,
      `range ${weekStartOf(a!)} / from ${weekStartOf(lastWeek)}`,
      `from ${weekStartOf(a!)} / none`,
      `from ${weekStartOf(lastWeek)} / none`,
    ]);
    expect(made).toBe(4);
  });

  it("gives a batch its range, or, when some id is not known, the floor, asked only then; their parameters and shape", async () => {
    const [a, b] = [newId("dlv"), newId("dlv")].sort();
    let asked = 0;
    const floor = async () => (asked++, "dlv_floor");
    const range = await batchIdBounds([b!, a!], floor);
    expect(range).toEqual({ kind: "range", first: a, last: b });
    expect(idBoundsParams(range)).toEqual([a, b]);
    expect(boundsShape(range)).toEqual({ kind: "range", week: weekStartOf(a!) });
    expect(asked).toBe(0);
    const unknown = await batchIdBounds([a!, null], floor);
    expect(unknown).toEqual({ kind: "from", floor: "dlv_floor" });
    expect(idBoundsParams(unknown)).toEqual(["dlv_floor"]);
    expect(boundsShape(unknown)).toEqual({ kind: "from", week: "" });
    expect(asked).toBe(1);
    const floorInWeek = timeOrderedIdFloor("dlv", Date.UTC(2026, 11, 2, 15));
    expect(boundsShape(await batchIdBounds([null], async () => floorInWeek))).toEqual({ kind: "from", week: timeOrderedIdFloor("dlv", Date.UTC(2026, 10, 30)) });
  });
});
