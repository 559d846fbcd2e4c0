// API.md, Tenancy: a request whose own content cannot be stored gets a 4xx naming why and never fails
// another request. Org A sends the poison of issue #11 while org B sends valid signed requests, all in
// the same batch windows.
import Stripe from "stripe";
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { postIngest, standardWebhooksHeaders, type IngestAnswer } from "@/test/ingest-requests";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
process.env.ORG_INGEST_RATE = "100000"; // B sends 300 at once: this file is about content, not rate

const STRIPE_SECRET = "whsec_isolation_stripe_secret";
let a: { none: string; stripe: string };
let b: { id: string; secret: string };
beforeAll(async () => {
  const orgA = await createOrganizationFixture("Org A");
  const orgB = await createOrganizationFixture("Org B");
  const destinationUrl = "http://127.0.0.1:9/";
  const none = await createEndpoint({ ctx: orgA.ctx, input: { name: "A none", provider: "none", destinationUrl } });
  const stripe = await createEndpoint({ ctx: orgA.ctx, input: { name: "A stripe", provider: "stripe", secret: STRIPE_SECRET, destinationUrl } });
  const sw = await createEndpoint({ ctx: orgB.ctx, input: { name: "B", provider: "standard-webhooks", destinationUrl } });
  a = { none: none.id, stripe: stripe.id };
  b = { id: sw.id, secret: sw.secret! };
});

const stripeHeaders = (body: string) => ({
  "stripe-signature": new Stripe("sk_test_unused").webhooks.generateTestHeaderString({ payload: body, secret: STRIPE_SECRET }),
  "content-type": "application/json",
});

describe("poison from one organization beside another's valid requests", () => {
  it("stores all of B's requests, stores A's with a cleaned type, refuses A's bad ids with 400, and answers 503 to none", async () => {
    const longType = "t".repeat(4_000);
    const poison: Array<{ name: string; send: () => Promise<IngestAnswer> }> = [
      { name: "nul type", send: () => postIngest(a.none, '{"type":"nul\\u0000inside"}', { "webhook-id": "a_nul", "content-type": "application/json" }) },
      { name: "surrogate type", send: () => postIngest(a.none, '{"type":"lone \\ud800 half"}', { "webhook-id": "a_surrogate" }) },
      { name: "long type", send: () => postIngest(a.none, JSON.stringify({ type: longType }), { "webhook-id": "a_long_type" }) },
      { name: "long id", send: () => postIngest(a.none, '{"type":"x"}', { "webhook-id": "i".repeat(3_000) }) },
      { name: "nul id in body", send: () => { const body = '{"id":"evt_\\u0000","type":"charge"}'; return postIngest(a.stripe, body, stripeHeaders(body)); } },
      { name: "surrogate id in body", send: () => { const body = '{"id":"evt_\\udc00","type":"charge"}'; return postIngest(a.stripe, body, stripeHeaders(body)); } },
    ];
    const valid = Array.from({ length: 300 }, (_, i) => {
      const body = JSON.stringify({ type: "b.event", i });
      return () => postIngest(b.id, body, standardWebhooksHeaders(b.secret, body, `b_${i}`));
    });
    // Interleaved, all at once: the poison lands in the batches that carry B's requests.
    const sends = valid.flatMap((send, i) => (i % 50 === 0 && poison[i / 50] ? [poison[i / 50]!.send, send] : [send]));
    const answers = await Promise.all(sends.map((send) => send()));
    const validAnswers = answers.filter((_, i) => !poison.some((p) => p.send === sends[i]));
    const poisonAnswers = new Map(poison.map((p) => [p.name, answers[sends.indexOf(p.send)]!]));

    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    expect(validAnswers.map((r) => r.status)).toEqual(Array(300).fill(200));
    const [{ count }] = await getSql()`select count(*)::int from deliveries where endpoint_id = ${b.id}`;
    expect(count).toBe(300);

    for (const name of ["nul type", "surrogate type", "long type"]) expect(poisonAnswers.get(name)!.status, name).toBe(200);
    const types = await getSql()`select external_id, event_type from deliveries where endpoint_id = ${a.none} order by external_id`;
    expect(types).toEqual([
      { external_id: "a_long_type", event_type: "t".repeat(255) },
      { external_id: "a_nul", event_type: "nulinside" },
      { external_id: "a_surrogate", event_type: "lone \ufffd half" },
    ]);
    for (const name of ["long id", "nul id in body", "surrogate id in body"]) {
      const answer = poisonAnswers.get(name)!;
      expect(answer.status, name).toBe(400);
      expect(answer.body.error.code).toBe("invalid_event_id");
    }
    expect(await getSql()`select id from deliveries where endpoint_id = ${a.stripe}`).toHaveLength(0);
    // Refusals show on the endpoint's dashboard log, like signature failures.
    await expect.poll(async () => (await getSql()`select reason from rejected_requests where endpoint_id = ${a.stripe}`).length).toBe(2);
  });
});
