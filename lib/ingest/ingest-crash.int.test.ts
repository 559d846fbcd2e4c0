// The promise behind the 200: kill the server with SIGKILL while requests are in flight, restart it,
// and every request that was answered 200 is there, with its job.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { startNextServer, type RunningServer } from "@/test/next-server";

const database = useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
let server: RunningServer | undefined;

afterAll(async () => {
  await server?.stop("SIGKILL");
});

describe("a server killed with SIGKILL mid-traffic", () => {
  let endpointId: string;
  beforeAll(async () => {
    const org = await createOrganizationFixture();
    endpointId = (await createEndpoint({ ctx: org.ctx, input: { name: "Crash", provider: "none", destinationUrl: "http://127.0.0.1:9/" } })).id;
  });

  it("has stored every request it answered 200, each with its payload and its job", { timeout: 240_000 }, async () => {
    server = await startNextServer({ databaseUrl: database.url() });
    const url = `${server.url}/in/${endpointId}`;
    const acknowledged = new Map<string, string>(); // webhook-id → delivery id
    let failed = 0;
    let sent = 0;
    let killed = false;
    const sender = async (lane: number) => {
      for (let i = 0; !killed || i < 1; i++) {
        const eventId = `evt_${lane}_${i}`;
        sent++;
        try {
          const response = await fetch(url, { method: "POST", headers: { "webhook-id": eventId, "content-type": "application/json" }, body: JSON.stringify({ lane, i, pad: "x".repeat(512) }) });
          if (response.status === 200) acknowledged.set(eventId, (await response.json()).id);
          else failed++;
        } catch {
          failed++;
        }
        if (killed) break;
      }
    };
    const lanes = Array.from({ length: 20 }, (_, lane) => sender(lane));
    // Kill once traffic is flowing. The lanes' requests may all happen to be answered when the kill
    // lands, so one request is held open (its body half sent) to be certainly in flight.
    while (acknowledged.size < 300) await new Promise((r) => setTimeout(r, 10));
    const held = holdRequestOpen(url, "evt_held");
    await held.started;
    server.child.kill("SIGKILL");
    killed = true;
    await Promise.all(lanes);
    await server.stop();
    expect(await held.outcome).toBe("cut off");
    expect(acknowledged.size).toBeGreaterThanOrEqual(300);

    server = await startNextServer({ databaseUrl: database.url() });
    const ids = [...acknowledged.values()];
    const stored = await getSql()`
      select d.id, d.external_id, exists (select 1 from graphile_worker._private_jobs j where j.payload ->> 'deliveryId' = d.id) as has_job,
        exists (select 1 from delivery_payloads p where p.delivery_id = d.id) as has_payload
      from deliveries d where d.id = any(${ids})`;
    expect(stored).toHaveLength(acknowledged.size);
    expect(stored.every((row) => row.has_job && row.has_payload)).toBe(true);
    for (const row of stored) expect(acknowledged.get(row.external_id)).toBe(row.id);
    // The restarted server answers for them too: a retried request is a duplicate of the stored one.
    const [eventId, deliveryId] = [...acknowledged.entries()][0]!;
    const retried = await fetch(`${server.url}/in/${endpointId}`, { method: "POST", headers: { "webhook-id": eventId }, body: "{}" });
    expect(await retried.json()).toEqual({ id: deliveryId, duplicate: true });
    console.log(`[crash test] ${sent} sent, ${acknowledged.size} answered 200, ${failed} cut off; all ${stored.length} acknowledged stored`);
  });
});

/** A request whose body is half sent: in flight until the server answers early or goes away. */
function holdRequestOpen(url: string, eventId: string): { started: Promise<void>; outcome: Promise<"cut off" | "answered"> } {
  const held = request(url, { method: "POST", headers: { "webhook-id": eventId, "content-type": "application/json", "transfer-encoding": "chunked" } });
  const started = new Promise<void>((resolve) => held.on("socket", (socket) => socket.on("connect", () => setTimeout(resolve, 100))));
  const outcome = new Promise<"cut off" | "answered">((resolve) => {
    held.on("response", (response) => {
      response.resume();
      resolve("answered");
    });
    held.on("error", () => resolve("cut off"));
  });
  held.write('{"held": "');
  return { started, outcome };
}
