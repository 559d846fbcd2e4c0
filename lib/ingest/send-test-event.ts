// POST /endpoints/{id}/test-event: a synthetic request stored by the same group commit as a received one, so it is
// routed by the destinations' filters, delivered by the worker and signed outbound like any other; only its
// is_test mark (the item's `test`) tells it apart. It counts against the organization's ingest rate, as a
// request would: a loop of test events cannot crowd out another organization's ingest.
import { z } from "zod";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { storableEventType } from "@/lib/delivery/storable-fields";
import { filterInputOf, lanesFor } from "@/lib/destinations/route-request";
import { requireIngestEndpoint } from "@/lib/endpoints/endpoint-cache";
import { getEndpointRowOrThrow } from "@/lib/endpoints/get-endpoint-or-throw";
import { ingestUrl } from "@/lib/endpoints/present-endpoint";
import { NotFoundError, TooManyRequestsError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { parseInput } from "@/lib/validation";
import { ingestLimits } from "./ingest-limits";

export const TEST_EVENT_TYPE = "inbox.test";

export const TestEventInput = z.strictObject({
  eventType: z.string().trim().min(1).max(200).optional(),
});

/** The body a destination receives: JSON, shaped as most providers' events are (type, id, time, data). */
function testBody(id: string, eventType: string, endpointName: string, at: Date): Buffer {
  return Buffer.from(JSON.stringify({
    type: eventType,
    id,
    createdAt: at.toISOString(),
    test: true,
    data: { message: `A test event sent from Webhook Inbox to the destinations of ${endpointName}.` },
  }));
}

export async function sendTestEvent({ ctx, input }: { ctx: Ctx; input: { endpointId: string; body: unknown } }): Promise<{ id: string }> {
  const { eventType = TEST_EVENT_TYPE } = parseInput(TestEventInput, input.body ?? {});
  const endpoint = await getEndpointRowOrThrow({ ctx, input: { id: input.endpointId } }); // 404 for another organization's
  const routing = await requireIngestEndpoint(endpoint.id);
  const { committer, rateLimiter } = ingestLimits();
  const wait = rateLimiter.take(ctx.organizationId);
  if (wait > 0) throw new TooManyRequestsError("rate_limited", "Your organization is over its ingest rate; no test event was sent. Retry after the time in Retry-After.", wait);
  const id = newId("dlv");
  const headers = { "content-type": "application/json", "user-agent": "Webhook-Inbox-Test-Event" };
  const body = testBody(id, storableEventType(eventType) ?? TEST_EVENT_TYPE, endpoint.name, new Date());
  const stored = await committer.store({
    id,
    organizationId: ctx.organizationId,
    endpointId: endpoint.id,
    lanes: lanesFor({ id, endpointId: endpoint.id, externalId: id }, routing.destinations, () => filterInputOf({ headers, body, url: ingestUrl(endpoint.id) })),
    externalId: id,
    eventType: storableEventType(eventType),
    headers,
    body,
    sourceIp: ctx.ip ?? null,
    isTest: true,
  });
  if (!stored) throw new NotFoundError("Endpoint");
  // After the commit that stored it (the group commit is its own statement): an entry for each test event sent.
  await withTransaction(ctx, (tx) => recordAudit(tx, {
    action: "endpoint.test_event_sent",
    target: { type: "endpoint", id: endpoint.id },
    details: { deliveryId: stored.id, eventType: storableEventType(eventType) },
  }));
  return { id: stored.id };
}
