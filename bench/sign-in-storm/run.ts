// bench/sign-in-storm: what a storm of sign-ins does to another organization's ingest (issue #12
// point 1: target p99 within 2× of idle). The product runs as `npm start` runs it — a fresh database,
// migrations, the Next.js web server and the worker, each a process of its own — and one organization
// sends signed webhooks at a steady rate (open loop) while 300 sign-ins (one in three with the right
// password, 30 accounts, each from its own address) arrive over 3 s from a process of their own.
// Idle and storm phases take turns for a few rounds; the figure is the median of the rounds' p99
// ratios, beside each round's figures. Asserts nothing.
//   npm run bench:sign-in-storm     (BENCH_ROUNDS=5, BENCH_RATE=50 webhooks/s, BENCH_REQUESTS=200 per phase)
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { createOrganizationFixture } from "@/test/fixtures";
import { ingestAtSteadyRate, percentile, prepareStorm } from "@/test/sign-in-storm";
import { runBench } from "../support/run-bench";
import { median } from "../support/stats";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const STORM = 300;
const STORM_SPREAD_MS = 3_000;
/** The measured ingest starts this long before the storm, and runs through it. */
const STORM_STARTS_AFTER_MS = 500;

const summary = (samples: { ms: number; status: number }[]) => {
  const ms = samples.map((s) => s.ms);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), max: Math.max(...ms), failed: samples.filter((s) => s.status !== 200).length };
};

process.env.AUTH_SECRET ??= "bench-auth-secret";
// The destination answers 200 at once: the worker delivers every webhook (its share of the
// database is in the figures) and no retries pile up into waves that land on some phases.
runBench("inbox_bench_sign_in_storm", async ({ destination, startProduct }) => {
  const sender = await createOrganizationFixture("Sender");
  const endpoint = await createEndpoint({ ctx: sender.ctx, input: { name: "Orders", provider: "standard-webhooks", destinationUrl: destination.url } });
  const emails: string[] = [];
  for (let i = 0; i < 30; i++) emails.push((await createOrganizationFixture(`Account ${i}`)).email);
  const { web: server } = await startProduct({ webEnv: { TRUSTED_PROXIES: "127.0.0.1/32,::1/128" }, workerEnv: { DELIVERY_LOG: "problems" } });
  const ingestUrl = `${server.url}/in/${endpoint.id}`;
  const secret = endpoint.secret!;

  await ingestAtSteadyRate(ingestUrl, secret, 100, RATE, "warm");
  await (await prepareStorm(server.url, emails.slice(0, 6), 6, 0)).go();

  console.log(`sign-in storm: ${STORM} sign-ins over ${STORM_SPREAD_MS} ms; ingest ${REQUESTS} signed webhooks at ${RATE}/s per phase; web server + worker + PostgreSQL on this machine\n`);
  console.log("| round | idle p50 / p99 / max (ms) | storm p50 / p99 / max (ms) | p99 ratio | sign-ins: signed in / wrong / busy / throttled / other | most in flight | storm answered in |");
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  const ratios: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const idle = summary(await ingestAtSteadyRate(ingestUrl, secret, REQUESTS, RATE, `idle${round}`));
    const attackers = await prepareStorm(server.url, emails, STORM, STORM_SPREAD_MS);
    const measured = ingestAtSteadyRate(ingestUrl, secret, REQUESTS, RATE, `storm${round}`);
    await new Promise((r) => setTimeout(r, STORM_STARTS_AFTER_MS));
    const storm = await attackers.go();
    const during = summary(await measured);
    const ratio = during.p99 / idle.p99;
    ratios.push(ratio);
    const o = storm.outcomes;
    const f = (s: ReturnType<typeof summary>) => `${s.p50.toFixed(1)} / ${s.p99.toFixed(1)} / ${s.max.toFixed(1)}${s.failed ? ` (${s.failed} not 200)` : ""}`;
    console.log(`| ${round} | ${f(idle)} | ${f(during)} | ${ratio.toFixed(2)}× | ${o["signed in"]} / ${o.wrong} / ${o.busy} / ${o.throttled} / ${o.other} | ${storm.mostInFlight} | ${storm.ms} ms |`);
  }
  console.log(`\nmedian p99 ratio (storm ÷ idle): ${median(ratios).toFixed(2)}× (target ≤ 2×)`);
});
