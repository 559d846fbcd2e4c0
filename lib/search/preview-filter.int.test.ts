// #43 item 4: the filter editor's preview matches a filter against the endpoint's newest 50 stored requests, as
// ingest would: exactly the expected ids among those 50 (never an older one, each request once however many
// destinations took it), never another organization's request, and an invalid filter refused naming its path.
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createDestination } from "@/lib/destinations/create-destination";
import { filterFromText } from "@/lib/destinations/destination-form";
import { PREVIEW_REQUESTS, previewFilter } from "./preview-filter";
import { searchGate } from "./search-gate";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { forgetEndpoint } from "@/lib/endpoints/endpoint-cache";
import { InvalidFilterError, NotFoundError } from "@/lib/errors";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { postIngest } from "@/test/ingest-requests";

useTestDatabase();

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;
let acme: Org;
let globex: Org;
let endpointId: string;
/** Acme's requests, oldest first: their ids and what was sent. */
const sent: Array<{ id: string; index: number; type: string; tenant: string }> = [];
let forged: string;

const STORED = PREVIEW_REQUESTS + 6;
const typeOf = (index: number) => (index % 3 === 0 ? "invoice.paid" : index % 3 === 1 ? "invoice.voided" : "customer.created");

async function ingest(endpoint: string, body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const answer = await postIngest(endpoint, JSON.stringify(body), { "content-type": "application/json", ...headers });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.id;
}

/** Newest first, as the preview answers. */
const newest = (keep: (request: (typeof sent)[number]) => boolean) => sent.slice(-PREVIEW_REQUESTS).filter(keep).map((request) => request.id).reverse();
const matchedIds = async (filter: unknown, org = acme) => (await previewFilter({ ctx: org.ctx, input: { endpointId, filter } })).matched.map((request) => request.id);

beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  acme = await createOrganizationFixture("Acme");
  globex = await createOrganizationFixture("Globex");
  // No worker runs: the requests stay stored and pending, which is all a preview reads.
  endpointId = (await createEndpoint({ ctx: acme.ctx, input: { name: "Orders", provider: "none", destinationUrl: "http://127.0.0.1:9/default" } })).id;
  // A second destination taking the invoices: their requests have two rows each, and still count once.
  await createDestination({ ctx: acme.ctx, input: { endpointId, body: { name: "Billing", url: "http://127.0.0.1:9/billing", filter: { body: { type: { $startsWith: "invoice." } } } } } });
  forgetEndpoint(endpointId);
  for (let index = 0; index < STORED; index++) {
    const tenant = index % 2 === 0 ? "blue" : "green";
    const id = await ingest(endpointId, { type: typeOf(index), n: index, data: { amount: index * 10 } }, { "x-tenant": tenant });
    sent.push({ id, index, type: typeOf(index), tenant });
  }
  // Globex's own request, then one moved under Acme's endpoint id (a row no ingest could make): newest of all,
  // matching every filter below, and never to be read for Acme.
  const theirs = (await createEndpoint({ ctx: globex.ctx, input: { name: "Theirs", provider: "none", destinationUrl: "http://127.0.0.1:9/theirs" } })).id;
  await ingest(theirs, { type: "invoice.paid", n: 1, data: { amount: 10 } }, { "x-tenant": "blue" });
  forged = await ingest(theirs, { type: "invoice.paid", n: 2, data: { amount: 20 } }, { "x-tenant": "blue" });
  await getSql()`update deliveries set endpoint_id = ${endpointId} where id = ${forged} and organization_id = ${globex.organizationId}`;
}, 120_000);

describe("previews a filter on the endpoint's newest stored requests", () => {
  it("matches exactly the expected ids among the newest 50, newest first, each request once", async () => {
    const rows = await getSql()`select count(*)::int as n from deliveries where endpoint_id = ${endpointId} and organization_id = ${acme.organizationId}`;
    expect(rows[0]!.n).toBeGreaterThan(STORED); // the invoices' second rows are there, and are not requests of their own
    const preview = await previewFilter({ ctx: acme.ctx, input: { endpointId, filter: { body: { type: "invoice.paid" } } } });
    expect(preview.considered).toBe(PREVIEW_REQUESTS);
    expect(preview.examined).toBe(PREVIEW_REQUESTS);
    const expected = newest((request) => request.type === "invoice.paid");
    expect(preview.matched.map((request) => request.id)).toEqual(expected);
    // The oldest invoice.paid ones are beyond the 50.
    expect(preview.matched.map((request) => request.id)).not.toContain(sent[0]!.id);
    expect(preview.matched[0]).toEqual({ id: expected[0], eventType: "invoice.paid", receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(Object.keys(preview.matched[0]!).sort()).toEqual(["eventType", "id", "receivedAt"]); // no body, no headers
  });

  it("reads headers, body operators, the path and combinations as ingest does", async () => {
    expect(await matchedIds({ headers: { "X-Tenant": "blue" } })).toEqual(newest((request) => request.tenant === "blue"));
    expect(await matchedIds({ body: { data: { amount: { $gte: 500 } } } })).toEqual(newest((request) => request.index * 10 >= 500));
    expect(await matchedIds({ $or: [{ body: { type: "customer.created" } }, { body: { n: { $in: [7, 8] } } }] }))
      .toEqual(newest((request) => request.type === "customer.created" || request.index === 7 || request.index === 8));
    expect(await matchedIds({ path: `/in/${endpointId}` })).toEqual(newest(() => true));
    expect(await matchedIds(null)).toEqual(newest(() => true));
    expect(await matchedIds({ body: { type: "refund.created" } })).toEqual([]);
  });

  it("never reads another organization's request, even one naming this endpoint", async () => {
    const all = await matchedIds(null);
    expect(all).toHaveLength(PREVIEW_REQUESTS);
    expect(all).not.toContain(forged);
    // Globex cannot preview Acme's endpoint: not found, whatever rows name it.
    await expect(previewFilter({ ctx: globex.ctx, input: { endpointId, filter: null } })).rejects.toBeInstanceOf(NotFoundError);
  });

  it("refuses an invalid filter with invalid_filter, naming its path, as saving it would", async () => {
    const refused = await previewFilter({ ctx: acme.ctx, input: { endpointId, filter: { body: { data: { amount: { $gte: true } } } } } }).catch((error) => error);
    expect(refused).toBeInstanceOf(InvalidFilterError);
    expect(refused.code).toBe("invalid_filter");
    expect(refused.message).toMatch(/^filter\.body\.data\.amount\.\$gte: /);
    const unknown = await previewFilter({ ctx: acme.ctx, input: { endpointId, filter: { $or: [{ body: {} }, { bdy: 1 }] } } }).catch((error) => error);
    expect(unknown.message).toMatch(/^filter\.\$or\[1\]\.bdy: /);
    // The editor's text that is not JSON at all.
    expect(() => filterFromText('{"body": ')).toThrow(InvalidFilterError);
    expect(() => filterFromText('{"body": ')).toThrow(/^filter: not JSON/);
    expect(filterFromText("  ")).toBeNull();
  });

  it("takes its turn with the organization's searches: past their queue it is refused 429, and another organization's goes on", async () => {
    const gate = searchGate();
    const { perOrganization, queuePerOrganization } = gate.settings;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    // The organization's searches hold every turn and fill its queue.
    const holding = Array.from({ length: perOrganization + queuePerOrganization }, () => gate.run(acme.organizationId, () => held));
    try {
      await expect(previewFilter({ ctx: acme.ctx, input: { endpointId, filter: {} } })).rejects.toMatchObject({ code: "too_many_searches" });
      // Another organization's preview is not held behind them.
      await expect(previewFilter({ ctx: globex.ctx, input: { endpointId, filter: {} } })).rejects.toBeInstanceOf(NotFoundError);
    } finally {
      release();
      await Promise.all(holding);
    }
    expect((await previewFilter({ ctx: acme.ctx, input: { endpointId, filter: {} } })).considered).toBe(PREVIEW_REQUESTS);
  });
});
