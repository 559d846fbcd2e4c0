import { describe, expect, it } from "vitest";
import { newId } from "@/lib/ids";
import { batchIdBounds, batchIdRange, withinIdRange } from "./batch-id-range";

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
    expect(withinIdRange(true, "d.id", "$6", "$7")).toBe("and d.id between $6::text and $7::text");
    expect(withinIdRange(false, "d.id", "$6", "$7")).toBe("and d.id >= $6::text");
  });

  it("picks the ranged statement and its two parameters, or the unranged one with the floor, asked only then", async () => {
    const [a, b] = [newId("dlv"), newId("dlv")].sort();
    let asked = 0;
    const floor = async () => (asked++, "dlv_floor");
    expect(await batchIdBounds([b!, a!], floor)).toEqual({ variant: "ranged", bounds: [a, b] });
    expect(asked).toBe(0);
    expect(await batchIdBounds([a!, null], floor)).toEqual({ variant: "unranged", bounds: ["dlv_floor"] });
    expect(asked).toBe(1);
  });
});
