import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { restartDelayMs, superviseChild } from "./child-processes";

describe("restarts a dying child after 1 s, doubling to 30 s", () => {
  it("waits 1, 2, 4, 8, 16, then 30 s for ever", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map(restartDelayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });
});

describe("superviseChild starts a child again each time it dies, waiting longer each time, until stopped", () => {
  it("restarts a crashing child after 1 s then 2 s, and stops a running one for good", { timeout: 30_000 }, async () => {
    const lines: string[] = [];
    let launches = 0;
    const supervised = superviseChild({
      name: "the crasher",
      log: (line) => lines.push(line),
      // Dies at once the first two times; the third stays up.
      launch: () => spawn(process.execPath, ["-e", launches++ < 2 ? "process.exit(3)" : "setInterval(() => {}, 1000)"]),
    });
    // Waits for the third launch rather than a fixed 1 s + 2 s: node's own start-up takes seconds on a loaded machine.
    await expect.poll(() => launches, { timeout: 15_000, interval: 100 }).toBe(3);
    expect(lines.map((line) => line.replace(/pid \d+/, "pid N"))).toEqual([
      "the crasher (pid N) exited unexpectedly (exit code 3); restarting it in 1 s",
      "the crasher (pid N) exited unexpectedly (exit code 3); restarting it in 2 s",
    ]);
    await expect.poll(() => supervised.current()?.pid, { timeout: 5_000 }).toBeDefined();
    const running = supervised.current()!;
    expect(running.exitCode).toBeNull();
    await supervised.stop(5_000);
    expect(running.signalCode).toBe("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(launches).toBe(3);
    expect(supervised.current()).toBeUndefined();
  });
});
