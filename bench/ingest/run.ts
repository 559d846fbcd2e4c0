// bench/ingest: ingest throughput and latency beside (a) a no-op route in the same Next.js server
// and (b) a naive bare node:http ingest, all in one run. Prints its figures; asserts nothing.
//   npm run bench:ingest            (BENCH_DURATION=seconds, BENCH_CONNECTIONS=n)
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import postgres from "postgres";
import { Webhook } from "standardwebhooks";
import { closeDb, getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { withDatabase } from "@/lib/runtime/database-url";
import { migrateDatabase } from "@/lib/runtime/migrate";
import { createOrganizationFixture } from "@/test/fixtures";
import { freePort, startNextServer } from "@/test/next-server";
import { startNaiveServer } from "./naive-server";

const duration = Number(process.env.BENCH_DURATION ?? 20);
const only = process.env.BENCH_ONLY; // e.g. "ingest" to profile one target
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

interface Figures { name: string; rps: number; p50: number; p99: number; ok: number; errors: number; rows: number | null }

function load(url: string, secret: string | null): Promise<autocannon.Result> {
  const webhook = secret ? new Webhook(secret) : null;
  const pad = "x".repeat(900);
  let sequence = 0;
  return autocannon({
    url,
    connections,
    duration,
    requests: [{
      method: "POST",
      setupRequest: (request) => {
        // A unique, freshly signed ~1 KB Standard Webhooks request each time.
        const id = `msg_${process.pid}_${sequence++}_${randomBytes(4).toString("hex")}`;
        const body = JSON.stringify({ type: "bench.event", id, pad });
        const now = new Date();
        const headers: Record<string, string> = { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(Math.floor(now.getTime() / 1000)) };
        if (webhook) headers["webhook-signature"] = webhook.sign(id, now, body);
        return { ...request, headers, body };
      },
    }],
  });
}

async function measure(name: string, url: string, secret: string | null, endpointId: string | null): Promise<Figures> {
  await load(url, secret).catch(() => undefined); // warm-up is not counted: first compiles and pool fills
  const before = endpointId ? Number((await getSql()`select count(*) from deliveries where endpoint_id = ${endpointId}`)[0]!.count) : 0;
  const result = await load(url, secret);
  const rows = endpointId ? Number((await getSql()`select count(*) from deliveries where endpoint_id = ${endpointId}`)[0]!.count) - before : null;
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, ok: result["2xx"], errors: result.errors + result.non2xx, rows };
}

async function main() {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const databaseName = `inbox_bench_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${databaseName}"`);
  const databaseUrl = withDatabase(adminUrl, databaseName);
  process.env.DATABASE_URL = databaseUrl;
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  let server: Awaited<ReturnType<typeof startNextServer>> | undefined;
  let naive: { close: () => Promise<void> } | undefined;
  try {
    await migrateDatabase(databaseUrl);
    const org = await createOrganizationFixture("Bench");
    const make = (name: string) => createEndpoint({ ctx: org.ctx, input: { name, provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/" } });
    const [ingest, bare] = [await make("ingest"), await make("naive")];
    server = await startNextServer({ databaseUrl, env: { INBOX_BENCH: "true", AUTH_SECRET: process.env.AUTH_SECRET } });
    const naivePort = await freePort();
    naive = await startNaiveServer({ databaseUrl, port: naivePort, endpointId: bare.id, organizationId: org.organizationId, secret: bare.secret! });

    console.log(`bench/ingest: ${connections} connections, ${duration} s each, unique signed ~1 KB Standard Webhooks requests`);
    if (only === "ingest") {
      console.log(await measure("ingest (POST /in/:id)", `${server.url}/in/${ingest.id}`, ingest.secret!, ingest.id));
      return;
    }
    const results = [
      await measure("next no-op route", `${server.url}/api/noop`, null, null),
      await measure("ingest (POST /in/:id)", `${server.url}/in/${ingest.id}`, ingest.secret!, ingest.id),
      await measure("naive bare node:http", `http://127.0.0.1:${naivePort}/`, bare.secret!, bare.id),
    ];
    console.log("\n| target | req/s | p50 ms | p99 ms | 2xx | errors | rows committed |");
    console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const r of results) console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.ok} | ${r.errors} | ${r.rows ?? "—"} |`);
    const [noop, ours, bareFigures] = results as [Figures, Figures, Figures];
    console.log(`\ningest / no-op Next.js route: ${(ours.rps / noop.rps).toFixed(2)}×   ingest / naive bare server: ${(ours.rps / bareFigures.rps).toFixed(2)}×`);
    // A timed run stops with up to `connections` requests in flight: committed, but never answered to us.
    const check = (f: Figures) =>
      f.rows! < f.ok ? `NO: ${f.ok - f.rows!} answered 2xx but not stored` : `every 2xx stored (+${f.rows! - f.ok} committed while the run was cut off, ≤ ${connections})`;
    console.log(`rows committed vs 2xx answered: ingest ${check(ours)}; naive ${check(bareFigures)}`);
  } finally {
    await naive?.close();
    await server?.stop();
    await closeDb();
    await admin.unsafe(`drop database if exists "${databaseName}" with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
