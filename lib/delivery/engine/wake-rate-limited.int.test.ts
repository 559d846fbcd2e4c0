// A rate-limit wake waits for its token inside its run only while few others of the process do: past the bound
// it is queued for its time again instead, so one organization's many limited destinations cannot hold the
// worker's job slots every organization shares.
import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { wakeRateLimited } from "./wake-rate-limited";

useTestDatabase();

describe("rate-limit wakes waiting in their run", () => {
  it("are at most four a process; a fifth is queued for its time and returns at once", async () => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    const org = await createOrganizationFixture("Many limits");
    const lanes: string[] = [];
    for (let i = 0; i < 5; i++) {
      const endpoint = await createEndpoint({ ctx: org.ctx, input: { name: `limited ${i}`, provider: "none", destinationUrl: "http://127.0.0.1:9/" } });
      const [lane] = await getSql()`update destinations set rate_per_second = 1 where endpoint_id = ${endpoint.id} returning id`;
      lanes.push(lane!.id);
    }
    const dueAt = Date.now() + 1_500;
    const finished: string[] = [];
    await Promise.all(lanes.map(async (destinationId, i) => {
      // Started in order, a moment apart, so the fifth is the one over the bound.
      await new Promise((resolve) => setTimeout(resolve, i * 20));
      await wakeRateLimited({ destinationId, dueAt });
      finished.push(destinationId);
    }));
    expect(finished[0]).toBe(lanes[4]);
    expect(finished.slice(1).sort()).toEqual(lanes.slice(0, 4).sort());
  });
});
