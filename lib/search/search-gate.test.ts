import { describe, expect, it } from "vitest";
import { TooManyRequestsError } from "@/lib/errors";
import { SearchGate } from "./search-gate";

/** A search that runs until its test says so, recording when it started. */
function controlledSearch(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { run: async () => { log.push(name); await done; return name; }, finish };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("SearchGate", () => {
  it("runs at most perOrganization of an organization's searches at once; the next starts as one ends", async () => {
    const gate = new SearchGate({ perOrganization: 2, total: 10, queuePerOrganization: 4 });
    const started: string[] = [];
    const searches = ["a1", "a2", "a3"].map((name) => controlledSearch(started, name));
    const results = searches.map((s) => gate.run("org_a", s.run));
    await settle();
    expect(started).toEqual(["a1", "a2"]);
    searches[0]!.finish();
    await settle();
    expect(started).toEqual(["a1", "a2", "a3"]);
    searches[1]!.finish();
    searches[2]!.finish();
    expect(await Promise.all(results)).toEqual(["a1", "a2", "a3"]);
  });

  it("refuses an organization's search past its queue with 429 too_many_searches, and another organization's goes on", async () => {
    const gate = new SearchGate({ perOrganization: 1, total: 10, queuePerOrganization: 2 });
    const started: string[] = [];
    const searches = ["a1", "a2", "a3"].map((name) => controlledSearch(started, name));
    const results = searches.map((s) => gate.run("org_a", s.run));
    const refused = gate.run("org_a", async () => "a4");
    await expect(refused).rejects.toBeInstanceOf(TooManyRequestsError);
    await expect(refused).rejects.toMatchObject({ code: "too_many_searches", status: 429 });
    expect(await gate.run("org_b", async () => "b1")).toBe("b1");
    for (const s of searches) s.finish();
    expect(await Promise.all(results)).toEqual(["a1", "a2", "a3"]);
  });

  it("keeps slots for everything else under total, and organizations waiting take turns", async () => {
    const gate = new SearchGate({ perOrganization: 2, total: 2, queuePerOrganization: 4 });
    const started: string[] = [];
    const a = ["a1", "a2", "a3", "a4"].map((name) => controlledSearch(started, name));
    const b = controlledSearch(started, "b1");
    const results = a.map((s) => gate.run("org_a", s.run));
    await settle();
    results.push(gate.run("org_b", b.run));
    await settle();
    expect(started).toEqual(["a1", "a2"]);
    a[0]!.finish();
    await settle();
    // The first free slot went to a3 (org_a was first in line); the next goes to org_b, not to a4.
    a[1]!.finish();
    await settle();
    expect(started).toEqual(["a1", "a2", "a3", "b1"]);
    for (const s of [...a, b]) s.finish();
    await Promise.all(results);
  });

  it("frees the slot of a search that fails", async () => {
    const gate = new SearchGate({ perOrganization: 1, total: 1, queuePerOrganization: 1 });
    await expect(gate.run("org_a", async () => { throw new Error("statement timeout"); })).rejects.toThrow("statement timeout");
    expect(await gate.run("org_a", async () => "next")).toBe("next");
  });
});
