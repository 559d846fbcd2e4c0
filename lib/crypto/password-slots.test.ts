import { afterEach, describe, expect, it } from "vitest";
import { PasswordHashingBusyError, withPasswordHashingSlot } from "./password-slots";

afterEach(() => {
  delete process.env.PASSWORD_HASH_CONCURRENCY;
  delete process.env.PASSWORD_HASH_QUEUE;
});

describe("bounded password hashing", () => {
  it("runs at most PASSWORD_HASH_CONCURRENCY hashes at once and refuses at once past the queue", async () => {
    process.env.PASSWORD_HASH_CONCURRENCY = "2";
    process.env.PASSWORD_HASH_QUEUE = "3";
    let running = 0;
    let most = 0;
    const release: Array<() => void> = [];
    const work = () =>
      withPasswordHashingSlot(async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => release.push(resolve));
        running -= 1;
        return "hashed";
      });
    const settled = Array.from({ length: 10 }, () => work().then((v) => v, (e: unknown) => e));
    await new Promise((r) => setTimeout(r, 20));
    // 2 running + 3 waiting; the other 5 were refused without waiting for anything.
    expect(running).toBe(2);
    const refusedEarly = await Promise.all(settled.slice(5));
    expect(refusedEarly.every((e) => e instanceof PasswordHashingBusyError)).toBe(true);
    while (release.length || running) {
      release.shift()?.();
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(await Promise.all(settled.slice(0, 5))).toEqual(Array(5).fill("hashed"));
    expect(most).toBe(2);
  });

  it("frees the slot when a hash fails", async () => {
    process.env.PASSWORD_HASH_CONCURRENCY = "1";
    process.env.PASSWORD_HASH_QUEUE = "1";
    await expect(withPasswordHashingSlot(async () => { throw new Error("boom"); })).rejects.toThrow("boom");
    expect(await withPasswordHashingSlot(async () => "ok")).toBe("ok");
  });
});
