import type { JobHelpers } from "graphile-worker";
import { describe, expect, it } from "vitest";
import { captureLogs } from "@/test/captured-logs";
import { deliverJobSpec } from "./enqueue";
import { jobSpec, PRIORITY, registeredTask } from "./job-registry";

const helpersOf = (id: string) => ({ job: { id, attempts: 1, max_attempts: 25 } }) as unknown as JobHelpers;

describe("a registered task", () => {
  it("runs with the payload parsed, its defaults applied", async () => {
    const seen: unknown[] = [];
    const task = registeredTask("purge-endpoint-deliveries", async (payload) => void seen.push(payload));
    await task({ organizationId: "org_1", endpointId: "ep_1" }, helpersOf("1"));
    expect(seen).toEqual([{ organizationId: "org_1", endpointId: "ep_1", sweep: false }]);
  });

  it("drops a payload it cannot read, saying so once, without running", async () => {
    const logs = captureLogs();
    let ran = false;
    const task = registeredTask("purge-endpoint-deliveries", async () => void (ran = true));
    await task({ organizationId: "org_1" }, helpersOf("42"));
    expect(ran).toBe(false);
    expect(logs.lines).toEqual([expect.objectContaining({ level: "error", jobId: "42", msg: expect.stringMatching(/^\[purge-endpoint-deliveries\] job 42 has an unreadable payload, dropped: /) })]);
  });
});

describe("a job's spec", () => {
  it("takes its identifier, attempts, key and priority from the registry", () => {
    expect(jobSpec("reverify-quarantine", { organizationId: "org_1", endpointId: "ep_1" })).toEqual({
      identifier: "reverify-quarantine", payload: { organizationId: "org_1", endpointId: "ep_1" }, job_key: "reverify-quarantine:ep_1", run_at: null, max_attempts: 5,
    });
    expect(jobSpec("reverify-quarantine", { organizationId: "org_1", endpointId: "ep_1", again: true }).job_key).toBe("reverify-quarantine:ep_1:again");
    expect(jobSpec("send-mail", { organizationId: "org_1", mailId: "mail_1" })).toMatchObject({ job_key: null, max_attempts: 25 });
    expect(jobSpec("index-bodies", { after: "dlv_1" }, { runAt: new Date(0) })).toMatchObject({ job_key: "index-bodies", run_at: "1970-01-01T00:00:00.000Z", max_attempts: 1 });
  });

  it("of a delivery: keyed unless added in bulk, replays behind fresh deliveries", () => {
    expect(deliverJobSpec({ deliveryId: "dlv_1", destinationId: "dst_1", trigger: "auto" })).toEqual({
      identifier: "deliver", payload: { deliveryId: "dlv_1", destinationId: "dst_1", trigger: "auto" }, job_key: "deliver:dlv_1", run_at: null, priority: PRIORITY.fresh, max_attempts: 10,
    });
    expect(deliverJobSpec({ deliveryId: "dlv_1", destinationId: "dst_1", trigger: "replay", unkeyed: true })).toMatchObject({ job_key: null, priority: PRIORITY.replay });
  });
});
