// A hostile tenant's searches: many at once, each slow (a short q absent from a big history tests every
// body of the organization). They must not take the dashboard/API pool's connections from another
// organization, whose page and search answer while they run. Without lib/search/search-gate.ts the
// first ten took every connection, and the other organization's page waited for one of them to end.
import { beforeAll, expect, it } from "vitest";
import { getSql } from "@/db";
import { listDeliveries } from "@/lib/delivery/list-deliveries";
import { TooManyRequestsError } from "@/lib/errors";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture, seedDeliveryHistory } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
const POOL = 10; // the dashboard/API pool's size (DATABASE_POOL_SIZE's default)

let hostile: Awaited<ReturnType<typeof createOrganizationFixture>>;
let other: Awaited<ReturnType<typeof createOrganizationFixture>>;

beforeAll(async () => {
  delete process.env.DATABASE_POOL_SIZE;
  hostile = await createOrganizationFixture("Hostile");
  other = await createOrganizationFixture("Other");
  await seedDeliveryHistory({ organizationId: hostile.organizationId, idPrefix: "h", count: 150_000 });
  await getSql()`analyze deliveries`;
  await getSql()`analyze delivery_payloads (delivery_id, organization_id, searchable)`; // not the word index's expression: slow on a busy machine
  const endpointId = (await createEndpointFixture(other.ctx, "http://127.0.0.1:9/hook")).id;
  await createDeliveryFixture({ ctx: other.ctx, endpointId, body: '{"note":"a needle"}', enqueue: false, searchable: true });
}, 300_000); // ~20 s alone; passed 120 s in a loaded CI run

it("one organization's many slow searches leave the pool to the others: their page and search answer meanwhile", async () => {
  // A window whose first tenth (200,000) is more than the hostile history: each hostile search is one quick
  // look and then one statement walking all 150,000 bodies, its last. Without the gate, the other
  // organization's queries get a connection only when such a statement ends, and so only after its search.
  process.env.INBOX_SEARCH_WINDOW = "2000000";
  try {
    await searchWhileHostile();
  } finally {
    delete process.env.INBOX_SEARCH_WINDOW;
  }
}, 120_000);

async function searchWhileHostile() {
  let hostileDone = 0;
  const hostileSearches = Array.from({ length: POOL + 2 }, () =>
    listDeliveries({ ctx: hostile.ctx, input: { q: "zq", limit: 50 } }).then(
      (page) => { hostileDone++; return { page }; },
      (error: unknown) => ({ error })));
  // Let the hostile searches take what they can first.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const page = await listDeliveries({ ctx: other.ctx, input: { limit: 50 } });
  const search = await listDeliveries({ ctx: other.ctx, input: { q: "needle", limit: 50 } });
  const doneMeanwhile = hostileDone;
  const outcomes = await Promise.all(hostileSearches);

  expect(page.data).toHaveLength(1);
  expect(search.data).toHaveLength(1);
  // The other organization did not wait for a hostile search to end.
  expect(doneMeanwhile).toBe(0);
  // Every hostile search either ran to its (empty) answer or was refused with 429, none in between.
  const refused = outcomes.filter((o) => "error" in o).map((o) => (o as { error: unknown }).error);
  for (const error of refused) expect(error).toBeInstanceOf(TooManyRequestsError);
  for (const o of outcomes) if ("page" in o) expect(o.page.data).toEqual([]);
  expect(refused.length).toBeGreaterThan(0);
}
