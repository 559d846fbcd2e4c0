// The long poll's bookkeeping in a web process: each organization's turns to wait, and a watch that does not
// lose a notice arriving while its pull looks.
import { describe, expect, it } from "vitest";
import { takeWaitTurn, tellWaiting, watchDestination } from "./pull-waiters";

describe("turns to wait", () => {
  it("are at most the cap per organization, given back once each, and other organizations have their own", () => {
    const first = takeWaitTurn("org_a", 2)!;
    const second = takeWaitTurn("org_a", 2)!;
    expect(first).toBeTypeOf("function");
    expect(second).toBeTypeOf("function");
    expect(takeWaitTurn("org_a", 2)).toBeNull();
    const other = takeWaitTurn("org_b", 2);
    expect(other).not.toBeNull();
    first();
    first(); // given back twice: counted once
    const third = takeWaitTurn("org_a", 2);
    expect(third).not.toBeNull();
    expect(takeWaitTurn("org_a", 2)).toBeNull();
    for (const giveBack of [second, third!, other!]) giveBack();
  });
});

describe("a watch", () => {
  it("keeps a notice that came while its pull looked, forgets it on reset, and ignores other destinations", async () => {
    const watch = watchDestination("dst_watched");
    try {
      tellWaiting("dst_watched"); // during a look
      let woke = false;
      await watch.wait(60_000).then(() => (woke = true));
      expect(woke).toBe(true);

      watch.reset();
      tellWaiting("dst_other");
      const waited = watch.wait(60_000).then(() => "told");
      const outcome = await Promise.race([waited, new Promise((resolve) => setTimeout(() => resolve("still waiting"), 100))]);
      expect(outcome).toBe("still waiting");
      tellWaiting("dst_watched");
      expect(await waited).toBe("told");
    } finally {
      watch.stop();
    }
  });

  it("ends its wait when the client goes away", async () => {
    const watch = watchDestination("dst_gone");
    const controller = new AbortController();
    const waited = watch.wait(60_000, controller.signal).then(() => "ended");
    controller.abort();
    expect(await waited).toBe("ended");
    watch.stop();
  });
});
