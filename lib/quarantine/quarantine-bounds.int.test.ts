// The quarantine on a real database, without HTTP: its bounds hold while many writers keep refused
// requests at once (rows and sealed bytes per endpoint, newest kept), what is turned away is counted,
// the sweep removes what is older than 7 days (or the organization's retention), and a re-verify
// checks a timestamp against the time the request was received.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { applyRetention } from "@/lib/retention/apply-retention";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { quarantineRequest } from "./quarantine-request";
import { reverifyQuarantined } from "./reverify-quarantined";
import { openRequest } from "./sealed-request";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
// This process's gate (built on first use): small bounds, rates that never turn anyone away, and
// more writers at once than the pool has connections.
const MAX_ROWS = 50;
const MAX_BYTES = 40_000;
process.env.QUARANTINE_MAX_REQUESTS = String(MAX_ROWS);
process.env.QUARANTINE_MAX_BYTES = String(MAX_BYTES);
process.env.QUARANTINE_SOURCE_RATE = process.env.QUARANTINE_ENDPOINT_RATE = "1000000";
process.env.QUARANTINE_SOURCE_BURST = process.env.QUARANTINE_ENDPOINT_BURST = "1000000";
process.env.QUARANTINE_WRITE_CONCURRENCY = process.env.QUARANTINE_TOTAL_WRITE_CONCURRENCY = "32";
process.env.QUARANTINE_ENDPOINT_BYTE_RATE = "1000000000000";

const github = async (org: Awaited<ReturnType<typeof createOrganizationFixture>>) => {
  const { id } = await createEndpoint({ ctx: org.ctx, input: { name: "gh", provider: "github", secret: "known-secret", destinationUrl: "http://127.0.0.1:9/hook" } });
  return { id, organizationId: org.organizationId };
};

const refused = (body: Buffer, sourceIp: string) => ({
  reason: "missing_signature", sourceIp, method: "POST", url: "https://inbox.test/in/x", headers: { "content-type": "application/json" }, body,
});

const state = async (endpointId: string) => {
  const [row] = await getSql()<{ rows: number; bytes: number; min_seq: number; max_seq: number }[]>`
    select count(*)::int as rows, coalesce(sum(octet_length(sealed)), 0)::int as bytes, min(seq)::int as min_seq, max(seq)::int as max_seq
    from quarantined_requests where endpoint_id = ${endpointId}`;
  return row!;
};

describe("the quarantine keeps within its bounds under concurrent writers", () => {
  it("never holds more than its rows or bytes, keeps the newest, and counts what it turns away", async () => {
    const org = await createOrganizationFixture("Bounds");
    const endpoint = await github(org);
    const other = await github(org);
    let over = 0;
    const probes: Awaited<ReturnType<typeof state>>[] = [];
    // 2,048 writes, 32 at a time, bodies 10 B – 4 KiB from as many addresses; a neighbour endpoint gets one a round.
    const ROUNDS = 64;
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(Array.from({ length: 32 }, (_, i) =>
        quarantineRequest(i === 0 ? other : endpoint, refused(randomBytes(10 + Math.floor(Math.random() * 4_096)), `198.51.${round % 256}.${i}`))));
      if (round % 8 === 0) probes.push(await state(endpoint.id));
    }
    // A body bigger than the whole quarantine is counted, not kept.
    expect(await quarantineRequest(endpoint, refused(randomBytes(MAX_BYTES + 1), "198.51.100.1"))).toBe(false);
    over++;
    for (const probe of [...probes, await state(endpoint.id)]) {
      expect(probe.rows).toBeLessThanOrEqual(MAX_ROWS);
      expect(probe.bytes).toBeLessThanOrEqual(MAX_BYTES);
    }
    const final = await state(endpoint.id);
    const [head] = await getSql()<{ last_seq: number }[]>`select last_seq::int from quarantine_heads where endpoint_id = ${endpoint.id}`;
    expect(head!.last_seq).toBe(ROUNDS * 31); // every write kept in turn (none failed)…
    expect(final.max_seq).toBe(head!.last_seq); // …and the newest are the ones left
    expect(final.max_seq - final.min_seq + 1).toBe(final.rows);
    expect(final.rows).toBeGreaterThan(5); // the byte bound, not a broken trim, limits them
    const neighbour = await state(other.id);
    expect(neighbour.max_seq).toBe(ROUNDS);
    expect(neighbour.rows).toBeLessThanOrEqual(MAX_ROWS);
    expect(neighbour.bytes).toBeLessThanOrEqual(MAX_BYTES);
    // The one turned away rides along with the next kept request.
    await quarantineRequest(endpoint, refused(Buffer.from("{}"), "198.51.100.2"));
    const [counted] = await getSql()<{ not_kept: number }[]>`select not_kept::int from quarantine_heads where endpoint_id = ${endpoint.id}`;
    expect(counted!.not_kept).toBe(over);
  }, 120_000);
});

describe("the sweep removes quarantined requests after 7 days", () => {
  it("removes those received more than 7 days ago, or past a shorter retention, and keeps the rest", async () => {
    const org = await createOrganizationFixture("Expiry");
    const short = await createOrganizationFixture("Expiry, 2-day retention");
    await getSql()`update organizations set retention_days = 2 where id = ${short.organizationId}`;
    const endpoint = await github(org);
    const shortEndpoint = await github(short);
    for (let i = 0; i < 4; i++) await quarantineRequest(endpoint, refused(Buffer.from(`{"n":${i}}`), "192.0.2.1"));
    for (let i = 0; i < 2; i++) await quarantineRequest(shortEndpoint, refused(Buffer.from(`{"n":${i}}`), "192.0.2.1"));
    // Received 8, 6, 3 days and a moment ago; the short-retention organization's 3 days and a moment ago.
    await getSql()`update quarantined_requests set received_at = now() - (array[interval '8 days', interval '6 days', interval '3 days', interval '0'])[seq]
      where endpoint_id = ${endpoint.id}`;
    await getSql()`update quarantined_requests set received_at = now() - (array[interval '3 days', interval '0'])[seq] where endpoint_id = ${shortEndpoint.id}`;
    const run = await applyRetention({ settings: { batchSize: 1_000, runMs: 60_000, rowsPerRun: 1_000_000, pauseFactor: 0 } });
    expect(run.deleted.quarantinedRequests).toBeGreaterThanOrEqual(2);
    const left = await getSql()<{ endpoint_id: string; seq: number }[]>`
      select endpoint_id, seq::int from quarantined_requests where endpoint_id in (${endpoint.id}, ${shortEndpoint.id}) order by endpoint_id = ${endpoint.id} desc, seq`;
    expect(left).toEqual([
      { endpoint_id: endpoint.id, seq: 2 }, { endpoint_id: endpoint.id, seq: 3 }, { endpoint_id: endpoint.id, seq: 4 },
      { endpoint_id: shortEndpoint.id, seq: 2 },
    ]);
  });
});

describe("a re-verify checks timestamps against the time the request was received", () => {
  it("admits a request that was fresh when it came a day ago, and not one that was already stale then", async () => {
    const org = await createOrganizationFixture("Timestamps");
    const newSecret = `whsec_${randomBytes(24).toString("base64")}`;
    const { id } = await createEndpoint({ ctx: org.ctx, input: { name: "sw", provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/hook" } });
    const endpoint = { id, organizationId: org.organizationId };
    const dayAgo = new Date(Date.now() - 86_400_000);
    const signed = (id: string, at: Date, body: string) => ({
      reason: "invalid_signature", sourceIp: "192.0.2.9", method: "POST", url: `https://inbox.test/in/${endpoint.id}`, body: Buffer.from(body),
      headers: { "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": new Webhook(newSecret).sign(id, at, body), "content-type": "application/json" },
    });
    await quarantineRequest(endpoint, signed("msg_fresh", dayAgo, '{"fresh":true}'));
    await quarantineRequest(endpoint, signed("msg_stale", new Date(dayAgo.getTime() - 3_600_000), '{"fresh":false}'));
    // They came a day ago (signed then), refused because the endpoint did not know newSecret yet.
    await getSql()`update quarantined_requests set received_at = ${dayAgo} where endpoint_id = ${endpoint.id}`;
    await getSql()`update endpoints set secret_encrypted = ${(await import("@/lib/crypto/secret-box")).encryptSecret(newSecret)} where id = ${endpoint.id}`;
    expect(await reverifyQuarantined({ ctx: org.ctx, input: { endpointId: endpoint.id, dryRun: true } })).toEqual({ count: 1 });
    expect(await reverifyQuarantined({ ctx: org.ctx, input: { endpointId: endpoint.id } })).toEqual({ count: 1, duplicates: 0 });
    const [delivery] = await getSql()<{ external_id: string; received_at: Date }[]>`select external_id, received_at from deliveries where endpoint_id = ${endpoint.id}`;
    expect(delivery).toEqual({ external_id: "msg_fresh", received_at: dayAgo });
    const [left] = await getSql()<{ sealed: Buffer }[]>`select sealed from quarantined_requests where endpoint_id = ${endpoint.id}`;
    expect(openRequest(left!.sealed).headers["webhook-id"]).toBe("msg_stale");
  });
});
