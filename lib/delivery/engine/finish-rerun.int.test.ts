// Issue #13 race (b): a finish whose COMMIT succeeded but whose reply was lost (or a statement that
// failed after it) is run again by the micro-batcher. The attempt must be recorded once, and the
// re-run must see that its own finish already happened. Also: a job re-run after a crash must not
// record a false "interrupted" attempt over one that was recorded.
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { claimDelivery } from "./claim-delivery";
import { finishAttempt } from "./finish-attempt";
import { deliverySettings } from "./settings";

useTestDatabase();

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  org = await createOrganizationFixture();
});

const attemptsOf = (id: string) => getSql()<{ number: number; status_code: number | null; error: string | null }[]>`
  select number, status_code, error from attempts where delivery_id = ${id} order by id`;

describe("a finish run twice records its attempt once", () => {
  for (const [label, statusCode] of [["delivered", 200], ["retried", 503], ["dead", 400]] as const) {
    it(`when the attempt ${label}`, async () => {
      const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { maxAttempts: 3 });
      const { id } = await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false });
      const claim = await claimDelivery({ deliveryId: id, destinationId: defaultDestinationId(endpoint.id), jobId: "4242", trigger: "auto", settings: deliverySettings() });
      if (claim.verdict !== "claimed") throw new Error(claim.verdict);
      const finish = () =>
        finishAttempt({
          attempt: claim.attempt,
          jobId: "4242",
          send: { result: { kind: "response", statusCode, retryAfterMs: null }, responseBody: "x", durationMs: 2 },
          outcome: statusCode === 200 ? { kind: "delivered" } : statusCode === 503 ? { kind: "retry", reason: "HTTP 503", retryAfterMs: null } : { kind: "dead", reason: "HTTP 400" },
          settings: deliverySettings(),
          slot: "release",
        });
      expect((await finish()).applied).toBe(true);
      // The batcher's re-run of the same item, as after a lost COMMIT reply.
      expect((await finish()).applied).toBe(false);
      expect(await attemptsOf(id)).toEqual([{ number: 1, status_code: statusCode, error: statusCode === 200 ? null : `HTTP ${statusCode}` }]);
    });
  }
});

describe("a job re-run after its attempt was recorded", () => {
  it("records no false 'interrupted' attempt over the real one", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { maxAttempts: 3 });
    const { id } = await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false });
    const claim = await claimDelivery({ deliveryId: id, destinationId: defaultDestinationId(endpoint.id), jobId: "5151", trigger: "auto", settings: deliverySettings() });
    if (claim.verdict !== "claimed") throw new Error(claim.verdict);
    // The attempt's outcome was recorded, and then the process died before the delivery row moved
    // (the two are one statement today; a recorded attempt with a claim still held stands for any
    // path that records first).
    await getSql()`insert into attempts (organization_id, delivery_id, number, trigger, started_at, status_code, error)
      values (${org.organizationId}, ${id}, 1, 'auto', now(), 503, 'HTTP 503')`;
    // The same job runs again and takes its own claim over: attempt 1 is already there.
    const again = await claimDelivery({ deliveryId: id, destinationId: defaultDestinationId(endpoint.id), jobId: "5151", trigger: "auto", settings: deliverySettings() });
    expect(again.verdict).toBe("claimed");
    expect(await attemptsOf(id)).toEqual([{ number: 1, status_code: 503, error: "HTTP 503" }]);
  });
});
