// The dashboard's bury (single and "Bury all matching…") never buries a delivered delivery; the REST
// bulk bury keeps burying what its filter names (API.md), delivered ones included.
import { beforeAll, describe, expect, it } from "vitest";
import * as buryMany from "@/app/api/v1/deliveries/bury/route";
import { getSql } from "@/db";
import { ConflictError } from "@/lib/errors";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { buryDeliveries } from "./bury-deliveries";
import { buryDelivery } from "./bury-delivery";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
process.env.DELIVERY_LOG = "problems";

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  org = await createOrganizationFixture("Acme");
});

async function statusOf(ids: string[]): Promise<string[]> {
  const rows = await getSql()<{ id: string; status: string }[]>`select id, status from deliveries where id = any(${ids})`;
  return ids.map((id) => rows.find((row) => row.id === id)!.status);
}

async function threeStatuses() {
  const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
  const make = async (status: "pending" | "delivered" | "dead") => (await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, status, enqueue: status === "pending" })).id;
  return { endpointId: endpoint.id, ids: [await make("pending"), await make("delivered"), await make("dead")] };
}

describe("bulk bury with keepDelivered (the dashboard)", () => {
  it("counts and buries only what is not delivered or dead yet", async () => {
    const { endpointId, ids } = await threeStatuses();
    const input = { filter: { endpointId }, keepDelivered: true };
    expect(await buryDeliveries({ ctx: org.ctx, input: { ...input, dryRun: true } })).toEqual({ count: 1 });
    expect(await buryDeliveries({ ctx: org.ctx, input })).toEqual({ count: 1 });
    expect(await statusOf(ids)).toEqual(["dead", "delivered", "dead"]);
  });

  it("REST bulk bury still buries what its filter names, delivered ones included", async () => {
    const { endpointId, ids } = await threeStatuses();
    const res = await callRoute(buryMany.POST, { method: "POST", apiKey: org.apiKey, path: "/api/v1/deliveries/bury", body: { endpointId } });
    expect(res).toMatchObject({ status: 200, body: { count: 2 } });
    expect(await statusOf(ids)).toEqual(["dead", "dead", "dead"]);
  });
});

describe("single bury with keepDelivered", () => {
  it("refuses a delivered delivery with a conflict and leaves it delivered", async () => {
    const { ids } = await threeStatuses();
    const delivered = ids[1]!;
    await expect(buryDelivery({ ctx: org.ctx, input: { id: delivered, keepDelivered: true } })).rejects.toBeInstanceOf(ConflictError);
    expect(await statusOf([delivered])).toEqual(["delivered"]);
    await buryDelivery({ ctx: org.ctx, input: { id: ids[0]!, keepDelivered: true } });
    expect(await statusOf([ids[0]!])).toEqual(["dead"]);
  });
});
