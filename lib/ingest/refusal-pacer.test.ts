import { describe, expect, it } from "vitest";
import { RefusalPacer } from "./refusal-pacer";

describe("paced refusals", () => {
  it("hold each organization's refusals up to its bound and let the rest go at once", async () => {
    const pacer = new RefusalPacer({ delayMs: 60_000, maxPerOrganization: 3, maxTotal: 5 });
    const settled: string[] = [];
    const pause = (org: string, label: string) => void pacer.pause(org).then(() => settled.push(label));
    for (let i = 0; i < 4; i++) pause("org_a", `a${i}`);
    for (let i = 0; i < 3; i++) pause("org_b", `b${i}`);
    await new Promise((resolve) => setImmediate(resolve));
    // A's fourth is past A's bound of 3; B's third is past the total bound of 5.
    expect(settled.sort()).toEqual(["a3", "b2"]);
    expect(pacer.waitingFor("org_a")).toBe(3);
    expect(pacer.waitingFor("org_b")).toBe(2);
    expect(pacer.waitingFor()).toBe(5);
  });

  it("releases its count when a pause ends", async () => {
    const pacer = new RefusalPacer({ delayMs: 5, maxPerOrganization: 1, maxTotal: 1 });
    await Promise.all([pacer.pause("org_a"), pacer.pause("org_a")]);
    expect(pacer.waitingFor()).toBe(0);
    expect(pacer.waitingFor("org_a")).toBe(0);
  });
});
