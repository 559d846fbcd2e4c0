// The upgrade to the word index (migration 0048, db/online-indexes.ts): until the online build has made it, the
// trigram index it replaces serves searches (through q's key), with the word semantics; once it is valid, the
// trigram index is dropped and the word index serves the same answers.
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { getSql } from "@/db";
import { ONLINE_INDEXES } from "@/db/online-indexes";
import { listDeliveries } from "@/lib/delivery/list-deliveries";
import { buildOnlineIndexes } from "@/lib/runtime/build-online-indexes";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";

const database = useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

const WORDS = "delivery_payloads_body_by_bucket_words_idx";
const TRIGRAMS = "delivery_payloads_body_by_bucket_trgm_idx";
/** The trigram index as migration 0031 had db/online-indexes.ts build it. */
const TRIGRAM_INDEX = {
  name: TRIGRAMS,
  on: `"delivery_payloads" using gin (left("delivery_id", 10), encode("body", 'escape') gin_trgm_ops) where "searchable" and octet_length("body") <= 65536`,
};

let sql: postgres.Sql;
let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  sql = postgres(database.url(), { max: 1, onnotice: () => {} });
  // The database as it was before 0048's online index: the trigram index, no word index.
  await sql.unsafe(`drop index ${WORDS}`);
  await buildOnlineIndexes(sql, [TRIGRAM_INDEX]);
  org = await createOrganizationFixture("Upgrade");
  const endpointId = (await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook")).id;
  const bodies = {
    customer: '{"customer":"cus_NffrFeUfNV2Hib","email":"alice@example.com","description":"Thanks for your order"}',
    other: '{"customer":"cus_Other","email":"bob@example.com","description":"order for you, thanks"}',
  };
  for (const searchable of [true, false]) {
    for (const [name, body] of Object.entries(bodies)) {
      ids[`${name}-${searchable}`] = (await createDeliveryFixture({ ctx: org.ctx, endpointId, body, enqueue: false, searchable, receivedAt: new Date(Date.now() - 60_000) })).id;
    }
  }
  // Newer filler: a window of 1 leaves the matches above to the indexes.
  for (let i = 0; i < 2; i++) await createDeliveryFixture({ ctx: org.ctx, endpointId, body: '{"note":"filler"}', enqueue: false, searchable: true });
  process.env.INBOX_SEARCH_WINDOW = "1";
});
afterAll(async () => {
  delete process.env.INBOX_SEARCH_WINDOW;
  await sql?.end();
});

const indexes = async () =>
  (await getSql()<{ name: string; valid: boolean }[]>`
    select c.relname as name, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relname in (${WORDS}, ${TRIGRAMS})`).map((r) => `${r.name}${r.valid ? "" : " (invalid)"}`).sort();

const found = async (q: string) => (await listDeliveries({ ctx: org.ctx, input: { q, limit: 50 } })).data.map((d) => d.id).sort();
const both = (name: string) => [ids[`${name}-true`]!, ids[`${name}-false`]!].sort();

async function searchesAnswerByWords() {
  expect(await found("cus_NffrFeUfNV2Hib")).toEqual(both("customer"));
  expect(await found("alice@exa*")).toEqual(both("customer"));
  expect(await found('"your order"')).toEqual(both("customer"));
  expect(await found("thanks order")).toEqual([...both("customer"), ...both("other")].sort());
  expect(await found("ffrFe")).toEqual([]);
}

it("searches by words with the trigram index before the online build, and with the word index after it", async () => {
  expect(await indexes()).toEqual([TRIGRAMS]);
  await searchesAnswerByWords();
  await buildOnlineIndexes(sql, ONLINE_INDEXES);
  expect(await indexes()).toEqual([WORDS]);
  await searchesAnswerByWords();
});
