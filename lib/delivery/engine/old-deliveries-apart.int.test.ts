// The worker's claim and finish batches are shared by every organization's attempts; a statement reads (plans,
// locks) from its oldest delivery's week on. One organization replaying a delivery it has kept for months must
// not make everyone's statement in that batch reach back to its weeks: such claims and attempts go in a
// statement of their own (batch-id-range.ts splitOlder), and every claim and attempt still lands.
import { describe, expect, it } from "vitest";
import postgres from "postgres";
import { getSql } from "@/db";
import { makeDeliveryPartitions } from "@/lib/storage/delivery-partitions";
import { timeOrderedIdFloor } from "@/lib/ids";
import { idInWeek, inWeekAt, monday } from "@/test/partition-weeks";
import { useTestDatabase } from "@/test/db";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { claimDeliveries } from "./claim-delivery";
import { finishAttempts, type AttemptEnd } from "./finish-attempt";
import { deliverySettings } from "./settings";

const testDatabase = useTestDatabase();
const settings = deliverySettings();

describe("one organization's old deliveries in a shared batch", () => {
  it("are claimed and finished in statements of their own: the others' plans hold none of the weeks between", async () => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    const sql = getSql();
    await makeDeliveryPartitions(sql, 6);
    const keeper = await createOrganizationFixture();
    const keeperEndpoint = await createEndpointFixture(keeper.ctx, "http://127.0.0.1:9/hook");
    const other = await createOrganizationFixture();
    const otherEndpoint = await createEndpointFixture(other.ctx, "http://127.0.0.1:9/hook");
    // The keeper's delivery of week 1 (replayed: pending, due); the other organization's of week 5.
    const old = idInWeek(1, 7);
    const recent = idInWeek(5, 7);
    for (const [o, endpointId, id] of [[keeper, keeperEndpoint.id, old], [other, otherEndpoint.id, recent]] as const) {
      await sql`insert into deliveries (id, organization_id, endpoint_id, external_id, status, size_bytes) values (${id}, ${o.organizationId}, ${endpointId}, ${"evt_" + id}, 'pending', 2)`;
      await sql`insert into delivery_payloads (delivery_id, organization_id, headers, body) values (${id}, ${o.organizationId}, '{}', '\\x7b7d')`;
    }
    // Weeks 2 to 4: between the two, no delivery of either.
    const between = [2, 3, 4].map((week) => `_w${monday(week)}"`);

    const plans: string[] = [];
    const explained = postgres(testDatabase.url(), { max: 1, onnotice: (n) => plans.push(n.message), connection: { plan_cache_mode: "force_generic_plan" } });
    try {
      await explained`load 'auto_explain'`;
      await explained`select set_config('auto_explain.log_min_duration', '0', false), set_config('auto_explain.log_level', 'notice', false),
        set_config('auto_explain.log_format', 'json', false)`;
      // The plans of what `run` did that modify deliveries, each with the deliveries it names in its parameters.
      const plansOf = async <T>(run: () => Promise<T>) => {
        plans.length = 0;
        const result = await run();
        const modifying = plans.filter((plan) => plan.includes('"Relation Name": "deliveries"') && plan.includes('"Operation": "Update"'));
        return { result, modifying, clean: modifying.filter((plan) => !between.some((week) => plan.includes(week))).length };
      };

      const claimed = await plansOf(() => claimDeliveries(explained, [
        { deliveryId: recent, endpointId: otherEndpoint.id, jobId: "41", trigger: "auto" },
        { deliveryId: old, endpointId: keeperEndpoint.id, jobId: "42", trigger: "replay" },
      ], settings));
      expect(claimed.result.map((c) => c.verdict)).toEqual(["claimed", "claimed"]);
      // Two statements a claim (park early, claim), two claims apart: the other organization's pair holds
      // none of weeks 2 to 4, the keeper's all of them.
      expect(claimed.modifying.length).toBe(4);
      expect(claimed.clean).toBe(2);

      const finished = await plansOf(() => finishAttempts(explained, [
        attemptEnd(other.organizationId, recent, otherEndpoint.id, "41"),
        attemptEnd(keeper.organizationId, old, keeperEndpoint.id, "42"),
      ], settings));
      expect(finished.result.map((f) => f.applied)).toEqual([true, true]);
      expect(finished.modifying.length).toBe(2);
      expect(finished.clean).toBe(1);
    } finally {
      await explained.end();
    }
    const states = await sql<{ id: string; status: string }[]>`select id, status from deliveries where id in (${old}, ${recent}) order by id`;
    expect(states).toEqual([{ id: old, status: "delivered" }, { id: recent, status: "delivered" }]);
    const attempts = await sql<{ n: number }[]>`select count(*)::int as n from attempts where delivery_id in (${old}, ${recent})`;
    expect(attempts[0]!.n).toBe(2);
  });

  it("set a chain from a floor further back than the default retention keeps apart too", async () => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    const sql = getSql();
    await makeDeliveryPartitions(sql, 6);
    const keeper = await createOrganizationFixture();
    const keeperEndpoint = await createEndpointFixture(keeper.ctx, "http://127.0.0.1:9/hook");
    const other = await createOrganizationFixture();
    const otherEndpoint = await createEndpointFixture(other.ctx, "http://127.0.0.1:9/hook");
    // Both deliveries of week 12; the keeper's floor where week 1 begins (it keeps months), the other's at week 10.
    await makeDeliveryPartitions(sql, 13);
    const mine = idInWeek(12, 11);
    const theirs = idInWeek(12, 12);
    for (const [o, endpointId, id] of [[keeper, keeperEndpoint.id, mine], [other, otherEndpoint.id, theirs]] as const) {
      await sql`insert into deliveries (id, organization_id, endpoint_id, external_id, status, size_bytes) values (${id}, ${o.organizationId}, ${endpointId}, ${"evt_" + id}, 'pending', 2)`;
      await sql`insert into delivery_payloads (delivery_id, organization_id, headers, body) values (${id}, ${o.organizationId}, '{}', '\\x7b7d')`;
    }
    await sql`update organizations set delivery_id_floor = ${weekStart(1)} where id = ${keeper.organizationId}`;
    await sql`update organizations set delivery_id_floor = ${weekStart(10)} where id = ${other.organizationId}`;
    const between = [2, 3, 4, 5, 6, 7, 8, 9].map((week) => `_w${monday(week)}"`);

    const plans: string[] = [];
    const explained = postgres(testDatabase.url(), { max: 1, onnotice: (n) => plans.push(n.message), connection: { plan_cache_mode: "force_generic_plan" } });
    try {
      const claimed = await claimDeliveries(explained, [
        { deliveryId: mine, endpointId: keeperEndpoint.id, jobId: "51", trigger: "auto" },
        { deliveryId: theirs, endpointId: otherEndpoint.id, jobId: "52", trigger: "auto" },
      ], settings);
      expect(claimed.map((c) => c.verdict)).toEqual(["claimed", "claimed"]);
      await explained`load 'auto_explain'`;
      await explained`select set_config('auto_explain.log_min_duration', '0', false), set_config('auto_explain.log_level', 'notice', false),
        set_config('auto_explain.log_format', 'json', false)`;
      const finished = await finishAttempts(explained, [
        { ...attemptEnd(keeper.organizationId, mine, keeperEndpoint.id, "51"), slot: "pass-on" },
        attemptEnd(other.organizationId, theirs, otherEndpoint.id, "52"),
      ], settings);
      expect(finished.map((f) => f.applied)).toEqual([true, true]);
      const modifying = plans.filter((plan) => plan.includes('"Relation Name": "deliveries"') && plan.includes('"Operation": "Update"'));
      // The keeper's chain reads back to its floor, in its own statement; the other's holds none of weeks 2 to 9.
      expect(modifying.length).toBe(2);
      expect(modifying.filter((plan) => !between.some((week) => plan.includes(week))).length).toBe(1);
    } finally {
      await explained.end();
    }
  });
});

const weekStart = (week: number) => timeOrderedIdFloor("dlv", inWeekAt(week, -0.5).getTime());

function attemptEnd(organizationId: string, deliveryId: string, endpointId: string, jobId: string): AttemptEnd {
  return {
    organizationId, deliveryId, endpointId, jobId, attemptNumber: 1, trigger: "auto", startedAt: new Date(), durationMs: 3,
    statusCode: 200, responseBody: "", error: null, status: "delivered", reason: null, retryInMs: null, uncount: 0, slot: "release",
  };
}
