import { describe, expect, it } from "vitest";
import { configFrom } from "@/lib/config/config";
import { QuarantineGate } from "./quarantine-gate";
import { quarantineSettings } from "./quarantine-settings";

const gate = (env: Record<string, string> = {}) => new QuarantineGate(quarantineSettings(configFrom({ QUARANTINE_WRITE_CONCURRENCY: "1000", QUARANTINE_TOTAL_WRITE_CONCURRENCY: "1000", ...env })));
/** One instant for every admit of a burst: on a slow machine the buckets' refill would let one more through. */
const AT = 1_000;
/** An endpoint of organization org_1 unless told otherwise. */
const ep = (id: string, organizationId = "org_1") => ({ id, organizationId });
/** Admits (and finishes at once) `n` requests; how many were let through. */
const admitted = (g: QuarantineGate, n: number, endpointId: string, source: (i: number) => string, size = 100) =>
  Array.from({ length: n }, (_, i) => g.admit(ep(endpointId), source(i), size, AT)).filter((pass) => pass && (pass.done(), true)).length;

describe("the quarantine gate turns a flood away before any work, and counts it", () => {
  it("lets one source address a burst of 20 per endpoint, then counts the rest; another endpoint has its own", () => {
    const g = gate();
    expect(admitted(g, 1_000, "ep_a", () => "198.51.100.1")).toBe(20);
    expect(admitted(g, 50, "ep_b", () => "198.51.100.1")).toBe(20);
    // The 980 turned away ride along with ep_a's next kept request.
    const next = g.admit(ep("ep_a"), "198.51.100.2", 100)!;
    expect(next.notKept).toBe(980);
    expect(g.admit(ep("ep_a"), "198.51.100.3", 100)!.notKept).toBe(0);
  });

  it("lets an endpoint 100 at once whatever their addresses, and no more bytes than the quarantine holds", () => {
    expect(admitted(gate(), 1_000, "ep_a", (i) => `10.0.${i >> 8}.${i & 255}`)).toBe(100);
    const bytes = gate({ QUARANTINE_MAX_BYTES: "1000" });
    expect(admitted(bytes, 50, "ep_a", (i) => `10.0.0.${i}`, 300)).toBe(3);
    expect(bytes.admit(ep("ep_b"), "10.0.0.1", 1_001)).toBeNull();
  });

  it("holds at most QUARANTINE_WRITE_CONCURRENCY writes in flight per organization", () => {
    const g = gate({ QUARANTINE_WRITE_CONCURRENCY: "2" });
    const first = g.admit(ep("ep_a"), "10.0.0.1", 1)!;
    expect(g.admit(ep("ep_b"), "10.0.0.2", 1)).not.toBeNull();
    expect(g.admit(ep("ep_c"), "10.0.0.3", 1)).toBeNull();
    first.done();
    first.done(); // twice is once
    expect(g.admit(ep("ep_c"), "10.0.0.4", 1)).not.toBeNull();
    expect(g.admit(ep("ep_d"), "10.0.0.5", 1)).toBeNull();
  });

  it("keeps another organization's writes free while one organization's are all in flight", () => {
    const g = gate({ QUARANTINE_WRITE_CONCURRENCY: "2" });
    const flooding = [g.admit(ep("ep_a", "org_flood"), "10.0.0.1", 1), g.admit(ep("ep_b", "org_flood"), "10.0.0.2", 1)];
    expect(flooding.every(Boolean)).toBe(true);
    expect(g.admit(ep("ep_c", "org_flood"), "10.0.0.3", 1)).toBeNull();
    const other = g.admit(ep("ep_x", "org_quiet"), "10.0.0.4", 1);
    expect(other).not.toBeNull();
    other!.done();
    for (const pass of flooding) pass!.done();
    expect(g.admit(ep("ep_c", "org_flood"), "10.0.0.5", 1)).not.toBeNull();
  });

  it("holds all organizations' writes under QUARANTINE_TOTAL_WRITE_CONCURRENCY", () => {
    const g = gate({ QUARANTINE_WRITE_CONCURRENCY: "2", QUARANTINE_TOTAL_WRITE_CONCURRENCY: "3" });
    const passes = ["org_1", "org_2", "org_3"].map((org, i) => g.admit(ep(`ep_${i}`, org), `10.0.1.${i}`, 1));
    expect(passes.every(Boolean)).toBe(true);
    expect(g.admit(ep("ep_9", "org_4"), "10.0.1.9", 1)).toBeNull();
    passes[0]!.done();
    expect(g.admit(ep("ep_9", "org_4"), "10.0.1.10", 1)).not.toBeNull();
  });
});
