// API.md, Tenancy: an organization over its ingest rate gets 429 with Retry-After and nothing is
// stored; one organization's big uploads are refused before another's small requests are.
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { postIngest, standardWebhooksHeaders } from "@/test/ingest-requests";
import { ingestLimits } from "./ingest-limits";

useTestDatabase();
const MiB = 1_048_576;
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
process.env.ORG_INGEST_RATE = "2";
process.env.ORG_INGEST_BURST = "6";
process.env.INGEST_BODY_BUDGET_BYTES = String(8 * MiB);
// Every body counts as one request here (ingest-rate-bytes-http.int.test.ts counts them by size): the budget's
// megabyte uploads must not use up A's rate.
process.env.ORG_INGEST_BYTES_PER_REQUEST = String(8 * MiB);

async function swEndpoint(orgName: string, maxBodyBytes = MiB) {
  const org = await createOrganizationFixture(orgName);
  const endpoint = await createEndpoint({ ctx: org.ctx, input: { name: orgName, provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/", maxBodyBytes } });
  return { organizationId: org.organizationId, id: endpoint.id, secret: endpoint.secret! };
}

const send = (endpoint: { id: string; secret: string }, id: string, body = JSON.stringify({ type: "t", id })) =>
  postIngest(endpoint.id, body, standardWebhooksHeaders(endpoint.secret, body, id));

describe("an organization over its ingest rate", () => {
  let a: Awaited<ReturnType<typeof swEndpoint>>;
  let b: Awaited<ReturnType<typeof swEndpoint>>;
  beforeAll(async () => {
    [a, b] = [await swEndpoint("Rate A"), await swEndpoint("Rate B")];
  });

  it("gets 429 rate_limited with Retry-After and nothing stored, while another organization is served", async () => {
    // 12 at once against a burst of 6 and 2 per second: 6 pass, maybe a 7th if the sends spread over half a second.
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => send(a, `a_${i}`)));
    const limited = answers.filter((r) => r.status === 429);
    expect(answers.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(6);
    expect(limited.length).toBeGreaterThanOrEqual(4);
    expect(limited.length + answers.filter((r) => r.status === 200).length).toBe(12);
    for (const r of limited) {
      expect(r.body.error.code).toBe("rate_limited");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    const storedIds = (await getSql()`select external_id from deliveries where endpoint_id = ${a.id}`).map((r) => r.external_id);
    const answered200 = answers.flatMap((r, i) => (r.status === 200 ? [`a_${i}`] : []));
    expect(storedIds.sort()).toEqual(answered200.sort());

    // B has its own bucket.
    const bAnswers = await Promise.all(Array.from({ length: 6 }, (_, i) => send(b, `b_${i}`)));
    expect(bAnswers.map((r) => r.status)).toEqual(Array(6).fill(200));

    // After the wait it names, A is served again.
    await new Promise((resolve) => setTimeout(resolve, Number(limited.at(-1)!.headers.get("retry-after")) * 1000));
    expect((await send(a, "a_after_wait")).status).toBe(200);
  });
});

/** A chunked body (no Content-Length) that sends what the test pushes and ends or fails when told. */
function controlledBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    stream,
    push: (bytes: number) => controller.enqueue(new Uint8Array(bytes).fill(0x20)),
    end: (text: string) => (controller.enqueue(new TextEncoder().encode(text)), controller.close()),
    fail: () => controller.error(new Error("client went away")),
  };
}

describe("the body budget under one organization's big uploads", () => {
  it("refuses that organization's next upload with 429 while another's small requests all succeed, and frees every byte after", async () => {
    const a = await swEndpoint("Budget A", 4 * MiB);
    const b = await swEndpoint("Budget B");
    const { budget } = ingestLimits();
    // Three uploads from A stream 1 MiB each and stall: A holds 3 MiB of the 8 MiB budget (alone it may hold half).
    const whole = `${" ".repeat(MiB)}tail`;
    const uploads = [0, 1, 2].map((i) => {
      const body = controlledBody();
      body.push(MiB);
      // The signature covers the whole body: the first upload's is made for other bytes.
      const headers = standardWebhooksHeaders(a.secret, i === 0 ? "other bytes" : whole, `a_big_${i}`);
      return { body, answer: postIngest(a.id, body.stream, headers) };
    });
    await expect.poll(() => budget.heldBy(a.organizationId)).toBe(3 * MiB);

    // A's fourth, declared 2 MiB, would pass its share: refused before a byte is read.
    const declared = "x".repeat(2 * MiB);
    const refused = await postIngest(a.id, declared, { ...standardWebhooksHeaders(a.secret, declared), "content-length": String(declared.length) });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("too_many_bytes_in_flight");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    // B's small requests are not touched by A's uploads.
    const small = await Promise.all(Array.from({ length: 6 }, (_, i) => send(b, `b_small_${i}`)));
    expect(small.map((r) => r.status)).toEqual(Array(6).fill(200));

    // A's stalled uploads end every way: refused after reading (401), abandoned by the sender (400), stored.
    uploads[0]!.body.end("tail");
    uploads[1]!.body.fail();
    uploads[2]!.body.end("tail");
    const settled = await Promise.allSettled(uploads.map((u) => u.answer));
    expect(settled.map((s) => (s.status === "fulfilled" ? s.value.status : "rejected"))).toEqual([401, 400, 200]);
    expect(await getSql()`select size_bytes from deliveries where external_id = 'a_big_2'`).toEqual([{ size_bytes: MiB + 4 }]);
    expect(budget.heldBy(a.organizationId)).toBe(0);
    expect(budget.heldBy(b.organizationId)).toBe(0);
    expect(budget.heldBy()).toBe(0);
    expect((await send(a, "a_after")).status).toBe(200);
  });

  it("answers 413 to a body larger than half the budget, which could never be admitted, even under the endpoint's own limit", async () => {
    const a = await swEndpoint("Budget big", 25 * MiB);
    const body = "y".repeat(5 * MiB);
    const answer = await postIngest(a.id, body, { ...standardWebhooksHeaders(a.secret, body), "content-length": String(body.length) });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe("payload_too_large");
  });
});
