// The deliveries filter's event-type suggestions (issue #47 point 6): the distinct types the organization has
// received, in order, at most MAX_EVENT_TYPES, another organization's never; read by a skip scan, so what it
// reads grows with the types listed, not with the deliveries holding them.
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { countingReads } from "@/test/counting-reads";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { MAX_EVENT_TYPES, listEventTypes } from "./list-event-types";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
let other: Awaited<ReturnType<typeof createOrganizationFixture>>;

beforeAll(async () => {
  org = await createOrganizationFixture();
  other = await createOrganizationFixture("Other");
  const endpointId = (await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook")).id;
  for (const eventType of ["invoice.paid", "customer.created", "invoice.paid", "invoice.voided", null]) {
    await createDeliveryFixture({ ctx: org.ctx, endpointId, eventType, enqueue: false });
  }
  const theirEndpoint = (await createEndpointFixture(other.ctx, "http://127.0.0.1:9/hook")).id;
  await createDeliveryFixture({ ctx: other.ctx, endpointId: theirEndpoint, eventType: "secret.theirs", enqueue: false });
});

describe("event-type suggestions", () => {
  it("lists the organization's distinct event types in order, none of another organization's", async () => {
    expect(await listEventTypes({ ctx: org.ctx })).toEqual(["customer.created", "invoice.paid", "invoice.voided"]);
    expect(await listEventTypes({ ctx: other.ctx })).toEqual(["secret.theirs"]);
  });

  it("stops at MAX_EVENT_TYPES, reading an index entry or so per type listed, not one per delivery", async () => {
    const busy = await createOrganizationFixture("Busy");
    const endpointId = (await createEndpointFixture(busy.ctx, "http://127.0.0.1:9/hook")).id;
    // 60 types, 40 deliveries each: 2,400 rows.
    await getSql()`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, event_type, size_bytes, status)
      select 'dlv_' || lpad(to_hex(n), 25, '0'), ${busy.organizationId}, ${endpointId}, d.id, 'evt_' || n, 'type.' || lpad((n % 60)::text, 2, '0'), 2, 'delivered'
      from generate_series(1, 2400) n, destinations d where d.endpoint_id = ${endpointId} and d.is_default`;
    await getSql()`analyze deliveries`;
    const { result, entries } = await countingReads(busy.ctx, "deliveries", (ctx) => listEventTypes({ ctx }));
    expect(result).toHaveLength(MAX_EVENT_TYPES);
    expect(result.slice(0, 3)).toEqual(["type.00", "type.01", "type.02"]);
    expect(entries).toBeLessThan(MAX_EVENT_TYPES * 5);
  });
});
