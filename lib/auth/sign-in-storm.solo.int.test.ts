// Issue #12 point 1: a sign-in storm is answered, cheaply, and ingest keeps answering. 300 sign-ins
// (right and wrong passwords, many accounts, each from its own address so the per-address limit does
// not simply stop them) reach the real server over 3 s while another organization sends signed
// webhooks. What the storm does to ingest latency is measured by bench/sign-in-storm (figures in the
// README), not asserted here. A solo file (test/run-all.ts): how many sign-ins are in flight at once
// depends on how fast the server answers, and another file's load beside it pushed that past 150.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";
import { startNextServer, type RunningServer } from "@/test/next-server";
import { ingestAtSteadyRate, prepareStorm } from "@/test/sign-in-storm";

const database = useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
// The storm meets scrypt at the product's cost: its accounts are hashed at it (vitest.config.ts lowers it for other files).
process.env.PASSWORD_HASH_COST = "15";

let server: RunningServer | undefined;
afterAll(async () => {
  await server?.stop();
});

describe("300 sign-ins at once are answered without queueing behind scrypt, and ingest keeps answering", () => {
  let ingestUrl = "";
  let secret = "";
  let emails: string[] = [];
  beforeAll(async () => {
    const sender = await createOrganizationFixture("Sender");
    const endpoint = await createEndpoint({ ctx: sender.ctx, input: { name: "Orders", provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/" } });
    secret = endpoint.secret!;
    emails = [];
    for (let i = 0; i < 30; i++) emails.push((await createOrganizationFixture(`Account ${i}`)).email);
    // X-Forwarded-For names each sign-in's address, trusted from loopback.
    // The server hashes at the product's default priority: vitest.config.ts raises it for the tests' fixtures.
    server = await startNextServer({ databaseUrl: database.url(), env: { AUTH_SECRET: process.env.AUTH_SECRET, TRUSTED_PROXIES: "127.0.0.1/32,::1/128", PASSWORD_HASH_NICE: undefined } });
    ingestUrl = `${server.url}/in/${endpoint.id}`;
  }, 300_000);

  it("signs in right passwords, refuses wrong ones, tells the rest the server is busy, and stores every webhook", { timeout: 120_000 }, async () => {
    const attackers = await prepareStorm(server!.url, emails, 300, 3_000);
    const ingest = ingestAtSteadyRate(ingestUrl, secret, 200, 50, "during");
    const storm = await attackers.go();
    const answers = await ingest;
    console.log(`[sign-in storm] ${JSON.stringify(storm.outcomes)}, up to ${storm.mostInFlight} in flight, all answered within ${storm.ms} ms`);

    expect(storm.outcomes.other).toBe(0); // no 5xx, no unexpected redirect
    expect(storm.outcomes["signed in"]).toBeGreaterThan(0);
    expect(storm.outcomes.wrong).toBeGreaterThan(0);
    // Hashing is bounded: most of the storm is refused at once instead of waiting for scrypt.
    expect(storm.outcomes.busy).toBeGreaterThan(150);
    // Busy answers are immediate, so no sign-in waits for hundreds of hashes (one hash is ~0.1–0.2 s).
    expect(storm.mostInFlight).toBeLessThan(150);
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
  });
});
