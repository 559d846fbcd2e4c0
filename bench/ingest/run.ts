// bench/ingest: ingest throughput and latency beside (a) a no-op route in the same Next.js server
// and (b) a naive bare node:http ingest, all in one run, with the worker running as deployed (it
// delivers every stored webhook to a local destination answering 200; each target starts once the
// previous one's deliveries are done). Prints its figures; asserts nothing.
// The three take turns for BENCH_ROUNDS rounds and the ratios are of the medians: this machine's
// speed drifts by 10-20 % from one 20 s stretch to the next.
//   npm run bench:ingest            (BENCH_DURATION=seconds, BENCH_CONNECTIONS=n, BENCH_ROUNDS=n,
//                                    BENCH_BODY=realistic|padded|entropy[:KiB]: bench/support/signed-webhook.ts)
import autocannon from "autocannon";
import { Webhook } from "standardwebhooks";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { createOrganizationFixture } from "@/test/fixtures";
import { freePort } from "@/test/next-server";
import { untilDelivered } from "../support/product";
import { benchPort, runBench } from "../support/run-bench";
import { benchBodyLabel, signedWebhook } from "../support/signed-webhook";
import { median } from "../support/stats";
import { startNaiveServer } from "./naive-server";

const duration = Number(process.env.BENCH_DURATION ?? 20);
const only = process.env.BENCH_ONLY; // "noop", "ingest" or "naive": run that target alone (to profile it)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP_SECONDS = 5;

interface Figures { name: string; rps: number; p50: number; p99: number; ok: number; errors: number; rows: number | null }

function load(url: string, secret: string, seconds = duration): Promise<autocannon.Result> {
  const webhook = new Webhook(secret);
  let sequence = 0;
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: [{
      method: "POST",
      setupRequest: (request) => ({ ...request, ...signedWebhook(webhook, `msg_${process.pid}_${sequence++}_${Math.random().toString(36).slice(2)}`) }),
    }],
  });
}

async function measure(name: string, url: string, secret: string, endpointId: string | null): Promise<Figures> {
  await untilDelivered(getSql());
  const before = endpointId ? Number((await getSql()`select count(*) from deliveries where endpoint_id = ${endpointId}`)[0]!.count) : 0;
  const result = await load(url, secret);
  const rows = endpointId ? Number((await getSql()`select count(*) from deliveries where endpoint_id = ${endpointId}`)[0]!.count) - before : null;
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, ok: result["2xx"], errors: result.errors + result.non2xx, rows };
}

runBench("inbox_bench", async ({ database, destination, startProduct }) => {
  let naive: { close: () => Promise<void> } | undefined;
  try {
    const org = await createOrganizationFixture("Bench");
    const make = (name: string) => createEndpoint({ ctx: org.ctx, input: { name, provider: "standard-webhooks", destinationUrl: destination.url } });
    const [ingest, bare] = [await make("ingest"), await make("naive")];
    // One organization sends everything here: its ingest rate limit (ORG_INGEST_RATE, default 120/s) would be
    // the figure measured, not ingest's throughput, so the bench lifts it unless told otherwise.
    const orgRate = process.env.ORG_INGEST_RATE ?? "1000000";
    const { web: server } = await startProduct({ webEnv: { INBOX_BENCH: "true", ORG_INGEST_RATE: orgRate } });
    const naivePort = benchPort(2) ?? (await freePort());
    naive = await startNaiveServer({ databaseUrl: database.url, port: naivePort, endpointId: bare.id, organizationId: org.organizationId, secret: bare.secret! });

    console.log(`bench/ingest: ${connections} connections, ${duration} s each, unique signed Standard Webhooks requests, body ${benchBodyLabel()} (BENCH_BODY) (ORG_INGEST_RATE=${orgRate}); the worker delivers what is stored`);
    const targets = {
      // The same signed requests to every target, so the load generator does the same work for each.
      noop: () => measure("next no-op route", `${server.url}/api/noop`, ingest.secret!, null),
      ingest: () => measure("ingest (POST /in/:id)", `${server.url}/in/${ingest.id}`, ingest.secret!, ingest.id),
      naive: () => measure("naive bare node:http", `http://127.0.0.1:${naivePort}/`, bare.secret!, bare.id),
    };
    // Warm-up is not counted: first compiles, pool fills. Its last requests may commit during the first round.
    await load(`${server.url}/api/noop`, ingest.secret!, WARM_UP_SECONDS);
    await load(`${server.url}/in/${ingest.id}`, ingest.secret!, WARM_UP_SECONDS);
    await load(`http://127.0.0.1:${naivePort}/`, bare.secret!, WARM_UP_SECONDS);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    if (only) {
      console.log(await targets[only as keyof typeof targets]());
      return;
    }
    const results: Figures[][] = [];
    console.log("\n| round | target | req/s | p50 ms | p99 ms | 2xx | errors | rows committed |");
    console.log("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (let round = 1; round <= rounds; round++) {
      const figures = [await targets.noop(), await targets.ingest(), await targets.naive()];
      for (const r of figures) console.log(`| ${round} | ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.ok} | ${r.errors} | ${r.rows ?? "—"} |`);
      results.push(figures);
    }
    const [noop, ours, bareRps] = [0, 1, 2].map((i) => median(results.map((figures) => figures[i]!.rps)));
    const ourP99 = median(results.map((figures) => figures[1]!.p99));
    console.log(`\nmedians: no-op ${noop!.toFixed(0)} req/s, ingest ${ours!.toFixed(0)} req/s (p99 ${ourP99} ms), naive ${bareRps!.toFixed(0)} req/s`);
    console.log(`ingest / no-op Next.js route: ${(ours! / noop!).toFixed(2)}× (per round: ${results.map((f) => (f[1]!.rps / f[0]!.rps).toFixed(2)).join(", ")})   ingest / naive bare server: ${(ours! / bareRps!).toFixed(2)}×`);
    // A timed run stops with up to `connections` requests in flight: committed, but never answered to us.
    const check = (i: number) => {
      const ok = results.reduce((sum, figures) => sum + figures[i]!.ok, 0);
      const rows = results.reduce((sum, figures) => sum + figures[i]!.rows!, 0);
      return rows < ok ? `NO: ${ok - rows} answered 2xx but not stored` : `every 2xx stored (${ok} answered, ${rows} committed: the rest were cut off in flight)`;
    };
    console.log(`rows committed vs 2xx answered: ingest ${check(1)}; naive ${check(2)}`);
  } finally {
    await naive?.close();
  }
});
