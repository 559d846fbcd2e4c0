// Search `q` answers exactly what its definition answers, written here in TypeScript over every row (external
// id equal and event type containing q, ignoring case; q's words in the body's, as inbox_body_word_vector finds
// them, tested on every row: every term, a prefix by prefix, a phrase adjacent), page after page, whether the page fills from the
// newest-first walk or needs the indexes: binary and non-UTF-8 bodies, non-ASCII text, LIKE's special
// characters, bodies too big for the word index, bodies in it (searchable) and not yet
// (lib/search/index-bodies.ts), ties on receivedAt. The words themselves: search-words.int.test.ts.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { listDeliveries } from "@/lib/delivery/list-deliveries";
import { replayDeliveries } from "@/lib/delivery/replay-deliveries";
import { parseQuery, wordsQuery } from "./body-words";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
let other: Awaited<ReturnType<typeof createOrganizationFixture>>;
let orders: string;
let refunds: string;

const big = (text: string, at: "start" | "end") => {
  const filler = "lorem ipsum dolor sit amet ".repeat(3000); // ~80 KB: past the trigram index's 64 KiB
  return at === "start" ? `{"note":"${text}","pad":"${filler}"}` : `{"pad":"${filler}","note":"${text}"}`;
};

const BODIES: Array<{ body: string | Buffer; eventType?: string | null; externalId?: string; endpoint?: "refunds"; status?: "dead" }> = [
  { body: '{"type":"order.created","note":"a needle here"}' },
  { body: '{"type":"order.created","note":"NEEDLE in capitals"}' },
  { body: Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x9f]), Buffer.from("needle"), Buffer.from([0xc3])]), eventType: null },
  { body: Buffer.from([0xc3, 0xa9, 0x00, 0x5c, 0x30]), eventType: null },
  { body: '{"name":"Zoë Müller","city":"Zürich"}' },
  { body: '{"discount":"100%_off","path":"C:\\\\temp\\\\needle"}' },
  { body: big("needle at the start", "start"), endpoint: "refunds" },
  { body: big("needle at the end", "end") },
  { body: big("nothing to see", "end"), eventType: "needle.created" },
  { body: '{"plain":"hay"}', eventType: "Order.NEEDLE.Updated" },
  { body: '{"plain":"hay"}', externalId: "needle" },
  { body: '{"plain":"hay"}', externalId: "evt_needle_substring" },
  { body: '{"plain":"hay"}', externalId: "EVT_Mixed_Case" },
  { body: '{"plain":"103 \\\\303 octal-looking"}' },
  { body: "plain text, not json: needle and haystack", status: "dead" },
  { body: "needle", endpoint: "refunds", status: "dead" },
  // The body index is asked for q's longest letters-and-digits run only: these share it, one holds q.
  { body: '{"email":"User142518@Example.com"}' },
  { body: '{"email":"user142518@example.org"}' },
  { body: '{"email":"user1425@example.com"}' },
];

const QUERIES = [
  "needle", "NEEDLE", "Needle", "needl*", "Zoë", "zoë", "ZOË", "zürich", "ZÜRICH", "ë", "ü", "%_o", "100%", "_", "%", "\\", "\\303", "303",
  "needle.created", "NEEDLE.CREATED", "order", "evt_needle_substring", "EVT_NEEDLE_SUBSTRING", "evt_mixed_case", "e", "ne", "eedl", "absent-word", "\u00e9",
  // Backslashes and \ooo-looking text after a first character that is a letter, a space, a digit.
  "C:\\\\TEMP\\\\NEEDLE", " \\\\303", " \\303", "103 \\\\303", "3 \\\\303", "P\\\\", "\\\\303 OCTAL",
  // Whole words, prefixes, several words, phrases.
  "USER142518@example.COM", "user142518@", "user1425*", "@example.com", "example.org\"", "142518", "needle here", "\"a needle\"", "\"needle a\"", "\"needle at the*\"",
];

beforeAll(async () => {
  org = await createOrganizationFixture();
  other = await createOrganizationFixture("Other");
  orders = (await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook")).id;
  refunds = (await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook")).id;
  const base = Date.now() - 3_600_000;
  // Three rounds, so pages and windows cut across matches; every third delivery shares its receivedAt.
  for (let round = 0; round < 3; round++) {
    for (const [i, spec] of BODIES.entries()) {
      const n = round * BODIES.length + i;
      await createDeliveryFixture({
        ctx: org.ctx, endpointId: spec.endpoint === "refunds" ? refunds : orders, body: spec.body,
        eventType: spec.eventType === undefined ? "order.created" : spec.eventType,
        externalId: spec.externalId ? `${spec.externalId}${round ? `-${round}` : ""}` : undefined,
        // Most delivered, every third pending; every other body in the trigram index (searchable), the rest
        // waiting for lib/search/index-bodies.ts, so each is found in both ways.
        receivedAt: new Date(base + Math.floor(n / 3) * 1000), status: spec.status ?? (n % 3 === 0 ? "pending" : "delivered"), enqueue: false,
        searchable: n % 2 === 0,
      });
    }
  }
  await createDeliveryFixture({ ctx: other.ctx, endpointId: (await createEndpointFixture(other.ctx, "http://127.0.0.1:9/hook")).id, body: "needle", enqueue: false });
});

afterEach(() => {
  delete process.env.INBOX_SEARCH_WINDOW;
});

/** The definition, over every row of the organization, newest first. */
async function expected(q: string, filter: { endpointId?: string; status?: string } = {}): Promise<string[]> {
  const parsed = parseQuery(q);
  const rows = await getSql()<{ id: string; external_id: string; event_type: string | null; holds: boolean }[]>`
    select id, external_id, event_type,
      ${parsed.terms.length > 0}::boolean and inbox_body_word_vector(p.headers, p.body) @@ to_tsquery('simple', ${wordsQuery(parsed) || "x"}) as holds
    from deliveries join delivery_payloads p on p.delivery_id = deliveries.id
    where deliveries.organization_id = ${org.organizationId}
      and (${filter.endpointId ?? null}::text is null or endpoint_id = ${filter.endpointId ?? null})
      and (${filter.status ?? null}::text is null or status = ${filter.status ?? null})
    order by received_at desc, id desc`;
  return rows
    .filter((r) => r.external_id.toLowerCase() === q.toLowerCase() || (r.event_type ?? "").toLowerCase().includes(q.toLowerCase()) || r.holds)
    .map((r) => r.id);
}

async function pagedSearch(q: string, limit: number, filter: { endpointId?: string; status?: "dead" | "pending" | "delivered" } = {}): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page: Awaited<ReturnType<typeof listDeliveries>> = await listDeliveries({ ctx: org.ctx, input: { ...filter, q, limit, cursor } });
    ids.push(...page.data.map((d) => d.id));
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return ids;
}

describe("search q answers what its definition answers", () => {
  it("finds every kind of match somewhere (the cases below are not vacuous)", async () => {
    // Bodies (not the binary one, where needle is inside a word of bytes) and event types; the external id "needle" (round 0 only).
    expect(await expected("needle")).toHaveLength(3 * 9 + 1);
    expect(await expected("needl*")).toHaveLength(3 * 7); // bodies only: the event types do not hold "needl*"
    expect(await expected("eedl")).toHaveLength(3 * 2); // inside a word: the two event types only
    expect(await expected("zürich")).toHaveLength(3 * 1);
    expect(await expected("ZÜRICH")).toHaveLength(3 * 1); // a UTF-8 body folds as the database folds text
    expect(await expected("ë")).toEqual([]); // not a word of its own
    expect(await expected("C:\\\\TEMP\\\\NEEDLE")).toHaveLength(3); // its words c, temp, needle: a phrase
    expect(await expected("user1425*")).toHaveLength(3 * 3);
    expect(await expected("USER142518@example.COM")).toHaveLength(3 * 1);
    expect(await expected("\"a needle\"")).toHaveLength(3 * 1);
    expect(await expected("\"needle a\"")).toEqual([]);
    expect(await expected("\"needle at the*\"")).toHaveLength(3 * 2);
    expect(await expected("absent-word")).toEqual([]);
  });

  // 40: the walk's first tenth can call for the rest of the window before the indexes. A small window walks in
  // many small statements: ~11 s alone for window 2 with trigrams, ~36 s since each body a walk meets is parsed into
  // words (0048), past 90 s beside the whole suite on 2 cores; 5 covers the small windows (2 and 20 added nothing
  // of their own but that time). Every q pages through the default-sized window; the small windows, where the
  // walk's slices and the page boundaries cut across each other, page through one q of each way to match (the
  // others differ in how q is read into words, which the window does not touch): 135 and 76 s of a busy run before.
  const PAGED_IN_SMALL_WINDOWS = ["needle", "NEEDLE", "needl*", "zürich", "%_o", "needle.created", "order", "evt_needle_substring", "e", "user1425*", "\"needle at the*\"", "103 \\\\303", "absent-word"];
  for (const window of [5, 40, 10_000]) {
    it(`pages through the same deliveries, in order, when the newest-first walk covers ${window} deliveries`, { timeout: 300_000 }, async () => {
      process.env.INBOX_SEARCH_WINDOW = String(window);
      expect(QUERIES).toEqual(expect.arrayContaining(PAGED_IN_SMALL_WINDOWS));
      for (const q of window < 10_000 ? PAGED_IN_SMALL_WINDOWS : QUERIES) {
        const want = await expected(q);
        for (const limit of [1, 4, 50]) expect(await pagedSearch(q, limit), `q=${JSON.stringify(q)} limit=${limit}`).toEqual(want);
      }
    });
  }

  it("combines with the filters", async () => {
    process.env.INBOX_SEARCH_WINDOW = "3";
    for (const q of ["needle", "NEEDLE", "hay"]) {
      expect(await pagedSearch(q, 2, { endpointId: refunds }), q).toEqual(await expected(q, { endpointId: refunds }));
      for (const status of ["dead", "pending", "delivered"] as const) expect(await pagedSearch(q, 2, { status }), `${q} ${status}`).toEqual(await expected(q, { status }));
    }
  });
});

describe("search q ignores case", () => {
  const bodyOf = async (id: string) => (await getSql()<{ body: Buffer; event_type: string | null; external_id: string }[]>`select p.body, event_type, external_id from deliveries join delivery_payloads p on p.delivery_id = deliveries.id where id = ${id}`)[0]!;

  for (const window of [2, 10_000]) {
    it(`a lowercase q finds a capitalised body, event type and external id (newest-first walk over ${window})`, async () => {
      process.env.INBOX_SEARCH_WINDOW = String(window);
      const found = await Promise.all((await pagedSearch("needle", 50)).map(bodyOf));
      expect(found.some((d) => d.body.toString().includes("NEEDLE in capitals"))).toBe(true);
      expect(found.some((d) => d.event_type === "Order.NEEDLE.Updated")).toBe(true);
      const ids = await Promise.all((await pagedSearch("evt_mixed_case", 50)).map(bodyOf));
      expect(ids.map((d) => d.external_id)).toEqual(["EVT_Mixed_Case"]);
    });
  }

  it("reads % and _ as what separates words, never as LIKE's wildcards", async () => {
    process.env.INBOX_SEARCH_WINDOW = "2";
    const percent = await Promise.all((await pagedSearch("100%_OFF", 50)).map(bodyOf));
    expect(percent).toHaveLength(3);
    for (const d of percent) expect(d.body.toString()).toContain("100%_off");
    expect(await pagedSearch("100%off", 50)).toHaveLength(3); // the same words, 100 then off
    expect(await pagedSearch("off%100", 50)).toEqual([]);
    expect(await pagedSearch("1_0", 50)).toEqual([]);
  });
});

describe("eventType matches exactly, or by prefix when it ends in *", () => {
  let events: Awaited<ReturnType<typeof createOrganizationFixture>>;
  const TYPES = ["invoice.paid", "invoice.created", "Invoice.paid", "invoices.paid", "xinvoice.paid", "invoice", "invoice_paid", "invoiceXpaid"];
  const ids = new Map<string, string>();

  beforeAll(async () => {
    events = await createOrganizationFixture("Events");
    const endpointId = (await createEndpointFixture(events.ctx, "http://127.0.0.1:9/hook")).id;
    for (const eventType of [...TYPES, null]) {
      ids.set(String(eventType), (await createDeliveryFixture({ ctx: events.ctx, endpointId, eventType, status: "dead", enqueue: false })).id);
    }
  });

  const typesFor = async (eventType: string) => {
    const page = await listDeliveries({ ctx: events.ctx, input: { eventType, limit: 50 } });
    return page.data.map((d) => d.eventType).sort();
  };

  it("lists by prefix only", async () => {
    expect(await typesFor("invoice.*")).toEqual(["invoice.created", "invoice.paid"]);
    expect(await typesFor("invoice_*")).toEqual(["invoice_paid"]); // _ is literal
    expect(await typesFor("invoice*")).toEqual(["invoice", "invoice.created", "invoice.paid", "invoiceXpaid", "invoice_paid", "invoices.paid"]);
    expect(await typesFor("*")).toEqual([...TYPES].sort());
  });

  it("lists exactly without a trailing *", async () => {
    expect(await typesFor("invoice.paid")).toEqual(["invoice.paid"]);
    expect(await typesFor("invoice")).toEqual(["invoice"]);
    expect(await typesFor("invoice.")).toEqual([]);
  });

  it("selects the same for a bulk replay", async () => {
    expect(await replayDeliveries({ ctx: events.ctx, input: { filter: { eventType: "invoice.*" }, dryRun: true } })).toEqual({ count: 2 });
  });
});
