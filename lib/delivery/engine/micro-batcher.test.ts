import { describe, expect, it } from "vitest";
import { MicroBatcher } from "./micro-batcher";

/** A run that records each batch it is given and answers after the test lets it. */
function recordingRun(fail?: (input: number) => boolean) {
  const batches: number[][] = [];
  const run = async (inputs: number[]) => {
    batches.push(inputs);
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (fail && inputs.some(fail)) throw new Error(`bad input in ${inputs.join(",")}`);
    return inputs.map((n) => n * 10);
  };
  return { batches, run };
}

describe("MicroBatcher", () => {
  it("runs a lone call at once and the calls made meanwhile together, each answered its own output", async () => {
    const { batches, run } = recordingRun();
    const batcher = new MicroBatcher(run, { maxBatch: 100, maxConcurrent: 1 });
    const outputs = await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.submit(n)));
    expect(outputs).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([[1], [2, 3, 4, 5]]);
  });

  it("keeps batches within maxBatch", async () => {
    const { batches, run } = recordingRun();
    const batcher = new MicroBatcher(run, { maxBatch: 2, maxConcurrent: 1 });
    await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.submit(n)));
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
  });

  it("retries a failed batch one call at a time, so only the bad call fails", async () => {
    const { batches, run } = recordingRun((n) => n === 3);
    const batcher = new MicroBatcher(run, { maxBatch: 100, maxConcurrent: 1 });
    const settled = await Promise.allSettled([1, 2, 3, 4].map((n) => batcher.submit(n)));
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect((settled[3] as PromiseFulfilledResult<number>).value).toBe(40);
    expect(batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });
});
