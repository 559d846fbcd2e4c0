// The worker's claim and finish batches are shared by every organization's attempts; a statement reads (plans,
// locks) from its oldest delivery's week on. One organization replaying a delivery it has kept for months, or
// chaining from a floor a year back, must not make everyone's statement in that batch reach back to its weeks:
// such claims and attempts go in a statement of their own (batch-id-range.ts splitOlder), and every claim and
// attempt still lands.
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { timeOrderedIdFloor } from "@/lib/ids";
import { makeDeliveryPartitions } from "@/lib/storage/delivery-partitions";
import { idInWeek, inWeekAt, monday } from "@/test/partition-weeks";
import { useTestDatabase } from "@/test/db";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { explainedConnection, type ExplainedConnection } from "@/test/explained-connection";
import { createOrganizationFixture } from "@/test/fixtures";
import { claimDeliveries } from "./claim-delivery";
import { finishAttempts, type AttemptEnd } from "./finish-attempt";
import { deliverySettings } from "./settings";

const testDatabase = useTestDatabase();
const settings = deliverySettings();

describe("one organization's old deliveries in a shared batch", () => {
  it("are claimed and finished in statements of their own: the others' plans hold none of the weeks between", async () => {
    // The keeper's delivery of week 1 (replayed: pending, due); the other organization's of week 5.
    const { keeper, other } = await twoOrganizations(idInWeek(1, 7), idInWeek(5, 7), 6);
    const between = weeks(2, 4); // no delivery of either
    const explained = await explainedConnection(testDatabase.url());
    try {
      const claimed = await modifyingPlans(explained, between, () => claimDeliveries(explained.sql, [
        { deliveryId: other.deliveryId, destinationId: defaultDestinationId(other.endpointId), jobId: "41", trigger: "auto" },
        { deliveryId: keeper.deliveryId, destinationId: defaultDestinationId(keeper.endpointId), jobId: "42", trigger: "replay" },
      ], settings));
      expect(claimed.result.map((c) => c.verdict)).toEqual(["claimed", "claimed"]);
      // Two statements a claim (park early, claim), two claims apart: the other organization's pair holds
      // none of weeks 2 to 4, the keeper's all of them.
      expect([claimed.modifying, claimed.clean]).toEqual([4, 2]);

      const finished = await modifyingPlans(explained, between, () => finishAttempts(explained.sql, [attemptEnd(other, "41"), attemptEnd(keeper, "42")], settings));
      expect(finished.result.map((f) => f.applied)).toEqual([true, true]);
      expect([finished.modifying, finished.clean]).toEqual([2, 1]);
    } finally {
      await explained.sql.end();
    }
    const sql = getSql();
    const ids = [keeper.deliveryId, other.deliveryId];
    expect((await sql<{ status: string }[]>`select status from deliveries where id = any(${ids})`).map((r) => r.status)).toEqual(["delivered", "delivered"]);
    expect((await sql<{ n: number }[]>`select count(*)::int as n from attempts where delivery_id = any(${ids})`)[0]!.n).toBe(2);
  });

  it("set a chain from a floor further back than the default retention keeps apart too", async () => {
    // Both deliveries of week 12; the keeper's floor where week 1 begins (it keeps months), the other's at week 10.
    const { keeper, other } = await twoOrganizations(idInWeek(12, 11), idInWeek(12, 12), 13);
    const sql = getSql();
    await sql`update organizations set delivery_id_floor = ${weekStart(1)} where id = ${keeper.organizationId}`;
    await sql`update organizations set delivery_id_floor = ${weekStart(10)} where id = ${other.organizationId}`;
    const explained = await explainedConnection(testDatabase.url());
    try {
      const claimed = await claimDeliveries(explained.sql, [
        { deliveryId: keeper.deliveryId, destinationId: defaultDestinationId(keeper.endpointId), jobId: "51", trigger: "auto" },
        { deliveryId: other.deliveryId, destinationId: defaultDestinationId(other.endpointId), jobId: "52", trigger: "auto" },
      ], settings);
      expect(claimed.map((c) => c.verdict)).toEqual(["claimed", "claimed"]);
      const finished = await modifyingPlans(explained, weeks(2, 9), () =>
        finishAttempts(explained.sql, [{ ...attemptEnd(keeper, "51"), slot: "pass-on" }, attemptEnd(other, "52")], settings));
      expect(finished.result.map((f) => f.applied)).toEqual([true, true]);
      // The keeper's chain reads back to its floor, in its own statement; the other's holds none of weeks 2 to 9.
      expect([finished.modifying, finished.clean]).toEqual([2, 1]);
    } finally {
      await explained.sql.end();
    }
  });
});

interface Held { organizationId: string; endpointId: string; deliveryId: string }

/** Two organizations, "keeper" and "other", each with an endpoint and one pending delivery of the given id. */
async function twoOrganizations(keeperDelivery: string, otherDelivery: string, weeksAhead: number): Promise<{ keeper: Held; other: Held }> {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  const sql = getSql();
  await makeDeliveryPartitions(sql, weeksAhead);
  const held = async (deliveryId: string): Promise<Held> => {
    const org = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    await sql`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes)
      values (${deliveryId}, ${org.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), ${"evt_" + deliveryId}, 'pending', 2)`;
    await sql`insert into delivery_payloads (delivery_id, organization_id, headers, body) values (${deliveryId}, ${org.organizationId}, '{}', '\\x7b7d')`;
    return { organizationId: org.organizationId, endpointId: endpoint.id, deliveryId };
  };
  return { keeper: await held(keeperDelivery), other: await held(otherDelivery) };
}

/** What `run` returned, how many of its statements' plans update deliveries, and how many of those hold none of `between`. */
async function modifyingPlans<T>(explained: ExplainedConnection, between: string[], run: () => Promise<T>) {
  explained.clear();
  const result = await run();
  const modifying = explained.plans.filter((plan) => plan.includes('"Relation Name": "deliveries"') && plan.includes('"Operation": "Update"'));
  return { result, modifying: modifying.length, clean: modifying.filter((plan) => !between.some((week) => plan.includes(week))).length };
}

/** The partition suffixes of weeks `from` to `to` ahead, as a plan names them (followed by its quote). */
const weeks = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `_w${monday(from + i)}"`);

const weekStart = (week: number) => timeOrderedIdFloor("dlv", inWeekAt(week, -0.5).getTime());

function attemptEnd(held: Held, jobId: string): AttemptEnd {
  return {
    organizationId: held.organizationId, deliveryId: held.deliveryId, destinationId: defaultDestinationId(held.endpointId), jobId, attemptNumber: 1, trigger: "auto",
    startedAt: new Date(), durationMs: 3, statusCode: 200, responseBody: "", error: null, status: "delivered", reason: null, retryInMs: null,
    uncount: 0, slot: "release",
  };
}
