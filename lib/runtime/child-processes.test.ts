import { describe, expect, it } from "vitest";
import { restartDelayMs } from "./child-processes";

describe("restarts a dying child after 1 s, doubling to 30 s", () => {
  it("waits 1, 2, 4, 8, 16, then 30 s for ever", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map(restartDelayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });
});
