// Search q by whole words (API.md "Deliveries"), over realistic bodies: Stripe-like JSON, form-encoded, XML and
// plain text. Ids, e-mail addresses, dotted types, URLs and numbers whole and by prefix, several words, phrases,
// case; a piece inside a word no longer matches. A number keeps its sign (+1415…), as the parser reads it. Each body once in the word index (searchable) and once not yet,
// and each search through the newest-first walk and through the indexes (a window of 1).
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { listDeliveries } from "@/lib/delivery/list-deliveries";
import { indexBodies } from "./index-bodies";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

const stripe = JSON.stringify({
  id: "evt_1NG8Du2eZvKYlo2CUI79vXWy", object: "event", type: "invoice.payment_succeeded", created: 1686089970,
  data: { object: {
    id: "in_1NG8Du2eZvKYlo2C5dLqYgGk", object: "invoice", customer: "cus_NffrFeUfNV2Hib", customer_email: "Alice.Martin@Example.com",
    amount_paid: 2000, currency: "usd", hosted_invoice_url: "https://invoice.stripe.com/i/acct_1M2JTkLkdIwHu7ix/test_YWNjdF8x",
    description: "Thanks for your order. Café crème included", lines: { data: [{ price: { id: "price_1Mr6Zb", unit_amount: 1999.5 } }] },
  } },
});
const BODIES = {
  stripe: { body: stripe, headers: { "content-type": "application/json; charset=utf-8" } },
  form: {
    body: "AccountSid=AC3f2c1b&From=%2B14155550100&Body=Hello+world%2C+order+42+shipped&Email=bob%40shop.example.org&Callback=https%3A%2F%2Fhooks.example.net%2Fsms",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  },
  xml: {
    body: '<?xml version="1.0"?><notification type="order.shipped"><order id="ORD-7781">Tracking &amp; more: 1Z999AA10123456784</order><contact>carol@post.example.com</contact></notification>',
    headers: { "content-type": "application/xml" },
  },
  text: { body: "Deploy finished: build 2024.06.1 on host web-3 by dave@ops.example.io (see https://ci.example.dev/runs/991)", headers: { "content-type": "text/plain" } },
};
type Kind = keyof typeof BODIES;

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
/** Each kind's deliveries: its body indexed, and the same body not indexed yet. */
const ids = new Map<Kind, string[]>();

beforeAll(async () => {
  org = await createOrganizationFixture("Words");
  const endpointId = (await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook")).id;
  const base = Date.now() - 600_000;
  let n = 0;
  for (const searchable of [true, false]) {
    for (const [kind, { body, headers }] of Object.entries(BODIES) as Array<[Kind, { body: string; headers: Record<string, string> }]>) {
      const { id } = await createDeliveryFixture({
        ctx: org.ctx, endpointId, body, headers, eventType: "webhook", enqueue: false, searchable, status: "delivered", receivedAt: new Date(base + n++ * 1000),
      });
      ids.set(kind, [...(ids.get(kind) ?? []), id]);
    }
  }
  // Filler newer than all of them, so that a window of 1 leaves every match to the indexes.
  for (let i = 0; i < 3; i++) await createDeliveryFixture({ ctx: org.ctx, endpointId, body: '{"note":"filler"}', eventType: "webhook", enqueue: false, searchable: true });
});

afterEach(() => {
  delete process.env.INBOX_SEARCH_WINDOW;
});

async function kindsFound(q: string): Promise<Kind[]> {
  const page = await listDeliveries({ ctx: org.ctx, input: { q, limit: 50 } });
  const found = new Set(page.data.map((d) => d.id));
  return [...ids.entries()].filter(([, both]) => both.every((id) => found.has(id))).map(([kind]) => kind).sort();
}

const CASES: Array<[string, Kind[]]> = [
  // Ids whole (the phrase of their parts), by prefix, in any case; not by a piece inside a word.
  ["cus_NffrFeUfNV2Hib", ["stripe"]], ["CUS_NFFRFEUFNV2HIB", ["stripe"]], ["cus_Nffr*", ["stripe"]], ["ffrFe", []], ["NffrFeUfNV2Hib", ["stripe"]], ["cus_ffrFe", []],
  ["in_1NG8Du2eZvKYlo2C5dLqYgGk", ["stripe"]], ["ORD-7781", ["xml"]], ["ac3f2c1b", ["form"]],
  // E-mail addresses whole and by prefix (a form's decoded); the domain is a word of its own.
  ["alice.martin@example.com", ["stripe"]], ["Alice.Martin@exa*", ["stripe"]], ["bob@shop.example.org", ["form"]], ["bob@sh*", ["form"]],
  ["carol@post.example.com", ["xml"]], ["dave@ops.example.io", ["text"]], ["example.com", ["stripe"]], ["artin@example.com", []],
  // Dotted types, URLs, numbers.
  ["invoice.payment_succeeded", ["stripe"]], ["invoice.*", ["stripe"]], ["order.shipped", ["xml"]], ["payment_succeeded", []], ["shipped", ["form"]],
  ["https://invoice.stripe.com/i/acct_1M2JTkLkdIwHu7ix/test_YWNjdF8x", ["stripe"]], ["https://invoice.stripe.com/*", ["stripe"]],
  ["https://hooks.example.net/sms", ["form"]], ["https://ci.example.dev/runs/991", ["text"]],
  ["2000", ["stripe"]], ["1999.5", ["stripe"]], ["+14155550100", ["form"]], ["14155550100", []], ["1Z999AA10123456784", ["xml"]], ["2024.06.1", ["text"]], ["200", []],
  // Words, several words (all of them), phrases (adjacent, in order), case, non-ASCII.
  ["thanks", ["stripe"]], ["ORDER", ["form", "stripe", "xml"]], ["order 42", ["form"]], ["hello shipped", ["form"]], ["hello absent", []],
  ['"hello world"', ["form"]], ['"world hello"', []], ['"your order"', ["stripe"]], ['"thanks your"', []], ['"for your ord*"', ["stripe"]],
  ["café", ["stripe"]], ["Tracking", ["xml"]], ["amp", []], ["deploy finished", ["text"]], ["web-3", ["text"]], ["eploy", []],
];

describe("q finds whole words in bodies of every kind", () => {
  for (const window of ["1", "10000"]) {
    it(`through ${window === "1" ? "the indexes" : "the newest-first walk"}`, async () => {
      process.env.INBOX_SEARCH_WINDOW = window;
      for (const [q, kinds] of CASES) expect(await kindsFound(q), `q=${q}`).toEqual([...kinds].sort());
    });
  }

  it("finds the indexed bodies through the word index, asked for one bucket of time and a prefix", async () => {
    const [stripeIndexed] = ids.get("stripe")!;
    const plan = await getSql().begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      const ask = (explain: boolean) => tx.unsafe(`${explain ? "explain " : ""}select delivery_id from delivery_payloads
        where left(delivery_id, 10) = left($1, 10) and searchable and octet_length(body) <= 65536
          and inbox_body_word_vector(headers, body) @@ to_tsquery('simple', 'alice.martin:* & exa:*')`, [stripeIndexed!]);
      expect((await ask(false)).map((r) => r.delivery_id)).toEqual([stripeIndexed]);
      return (await ask(true)).map((r) => r["QUERY PLAN"]).join("\n");
    });
    expect(plan).toMatch(/Bitmap Index Scan on \S*body_by_bucket_words_idx/);
  });
});

describe("a body the parser cannot read as JSON or text", () => {
  it("is indexed all the same (the indexer never fails on it), and its ASCII words found", async () => {
    const other = await createOrganizationFixture("Odd bodies");
    const endpointId = (await createEndpointFixture(other.ctx, "http://127.0.0.1:9/hook")).id;
    const json = { "content-type": "application/json" };
    const odd = [
      Buffer.concat([Buffer.from('{"note":"quokka '), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]), // not UTF-8
      Buffer.from(`${"[".repeat(20_000)}"quokka"${"]".repeat(20_000)}`), // nested past the stack
      Buffer.from('{"note":"quokka \\u0000 nul"}'), // a NUL escape jsonb refuses
      Buffer.from('{"note":"quokka", truncated'), // not JSON
    ];
    const ids: string[] = [];
    for (const body of odd) ids.push((await createDeliveryFixture({ ctx: other.ctx, endpointId, body, headers: json, enqueue: false })).id);
    for (let passes = 0; passes < 10 && (await indexBodies()).indexed > 0; passes++);
    const [{ waiting }] = await getSql()<{ waiting: number }[]>`select count(*)::int as waiting from delivery_payloads where organization_id = ${other.organizationId} and not searchable`;
    expect(waiting).toBe(0);
    process.env.INBOX_SEARCH_WINDOW = "1";
    const found = await listDeliveries({ ctx: other.ctx, input: { q: "QUOKKA", limit: 50 } });
    expect(found.data.map((d) => d.id).sort()).toEqual([...ids].sort());
  });
});
