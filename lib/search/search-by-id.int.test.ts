// Search `q` finds a delivery by its own id (API.md: "`q` matches the delivery id, …"): the id a destination gets
// as x-inbox-delivery-id, or a fan-out row's `dlv_…:dst_…`, which finds its request. Looked up by primary key;
// another organization's id finds nothing, and the other filters still apply.
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import * as deliveriesRoute from "@/app/api/v1/deliveries/route";
import { newDestinationId } from "@/lib/destinations/destination-ids";
import { newId } from "@/lib/ids";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
let other: Awaited<ReturnType<typeof createOrganizationFixture>>;
let endpointId: string;
let target: string;
let rowId: string;
let theirs: string;

const search = async (q: string, extra = "", who = org) => {
  const answer = await callRoute(deliveriesRoute.GET, { apiKey: who.apiKey, path: `/?q=${encodeURIComponent(q)}${extra}` });
  expect(answer.status).toBe(200);
  return answer.body.data.map((item: { id: string }) => item.id) as string[];
};

beforeAll(async () => {
  org = await createOrganizationFixture();
  other = await createOrganizationFixture("Other");
  endpointId = (await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook")).id;
  // The one searched for among others; its external id and body do not hold its id (a provider's event id).
  for (let i = 0; i < 5; i++) await createDeliveryFixture({ ctx: org.ctx, endpointId, eventType: "order.created" });
  target = (await createDeliveryFixture({ ctx: org.ctx, endpointId, eventType: "invoice.paid", externalId: "evt_provider_1" })).id;
  for (let i = 0; i < 5; i++) await createDeliveryFixture({ ctx: org.ctx, endpointId, eventType: "order.created" });
  // Its row for a second destination (fan-out): the request's id, ':' and the destination's.
  const second = newDestinationId();
  await getSql()`insert into destinations (id, organization_id, endpoint_id, name, url, max_attempts, retry_base_seconds)
    values (${second}, ${org.organizationId}, ${endpointId}, 'Second', 'http://127.0.0.1:9/second', 8, 60)`;
  rowId = `${target}:${second}`;
  await getSql()`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, event_type, size_bytes, status, received_at)
    select ${rowId}, organization_id, endpoint_id, ${second}, external_id, event_type, size_bytes, 'dead', received_at from deliveries where id = ${target}`;
  const theirEndpoint = (await createEndpointFixture(other.ctx, "http://127.0.0.1:9/hook")).id;
  theirs = (await createDeliveryFixture({ ctx: other.ctx, endpointId: theirEndpoint })).id;
});

describe("search by a delivery's own id", () => {
  it("finds the delivery by its id, whatever its external id, and by a fan-out row's id", async () => {
    expect(await search(target)).toEqual([target]);
    expect(await search(` ${target} `)).toEqual([target]);
    expect(await search(rowId)).toEqual([target]);
  });

  it("keeps the other filters, and finds nothing of another organization's", async () => {
    expect(await search(target, `&endpointId=${endpointId}&status=dead`)).toEqual([target]); // its second row is dead
    expect(await search(target, "&eventType=order.*")).toEqual([]);
    expect(await search(theirs)).toEqual([]);
    expect(await search(target, "", other)).toEqual([]);
    expect(await search(newId("dlv"))).toEqual([]);
  });
});
