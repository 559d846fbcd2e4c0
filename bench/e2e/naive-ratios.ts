// bench/e2e's comparison with the naive floor (bench/naive): per offered rate, the product's figures
// as ratios of the naive's, measured in the same run with the same bodies. Issue #46's targets: the
// product's achieved rate ≥ 0.8× the naive's, its PostgreSQL CPU per webhook ≤ 0.5×, and deliveries
// current (the last within `currentSeconds` of the end).
import { achieved, current, micros, ms, type Phase } from "./figures";

const TARGET = { achievedAtLeast: 0.8, databaseAtMost: 0.5 };

const ratio = (product: number, naive: number) => (Number.isFinite(product / naive) ? `${(product / naive).toFixed(2)}×` : "—");
const whole = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en") : "—");

export function reportNaiveRatios(phases: Phase[], naive: Phase[], currentSeconds: number) {
  console.log(`\nThe product ÷ the naive floor (bench/naive: bare node:http, verify, one transaction with INSERT … ON CONFLICT DO NOTHING and add_job, ` +
    `a plain graphile-worker task POSTing the body), same offered rates and bodies, this run:`);
  console.log(`| offered /s | achieved rate (product / naive /s) | ingest p99 (ms) | send→destination p99 (ms) | PostgreSQL CPU per webhook (µs) | deliveries current, last ≤ ${currentSeconds} s after the end: product / naive | targets: rate ≥ ${TARGET.achievedAtLeast}×, PostgreSQL ≤ ${TARGET.databaseAtMost}×, current |`);
  console.log("| ---: | ---: | ---: | ---: | ---: | --- | --- |");
  const lag = (p: Phase) => `${current(p, currentSeconds) ? "yes" : "no"} (${p.lastDeliveryAfterEnd === null ? "—" : `${p.lastDeliveryAfterEnd.toFixed(1)} s`}${p.delivered < p.load.ok ? `, ${p.load.ok - p.delivered} missing` : ""})`;
  for (const p of phases) {
    const n = naive.find((candidate) => candidate.rate === p.rate);
    if (!n) continue;
    const rate = achieved(p) / achieved(n);
    const database = micros(p.cpu.database, p) / micros(n.cpu.database, n);
    const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
    console.log(`| ${p.rate} | ${ratio(achieved(p), achieved(n))} (${whole(achieved(p))} / ${whole(achieved(n))}) ` +
      `| ${ratio(p.load.latency.p99, n.load.latency.p99)} (${ms(p.load.latency.p99)} / ${ms(n.load.latency.p99)}) ` +
      `| ${ratio(p.sendToDestination.p99, n.sendToDestination.p99)} (${ms(p.sendToDestination.p99)} / ${ms(n.sendToDestination.p99)}) ` +
      `| ${ratio(micros(p.cpu.database, p), micros(n.cpu.database, n))} (${whole(micros(p.cpu.database, p))} / ${whole(micros(n.cpu.database, n))}) ` +
      `| ${lag(p)} / ${lag(n)} | ${verdict(rate >= TARGET.achievedAtLeast)} / ${verdict(database <= TARGET.databaseAtMost)} / ${verdict(current(p, currentSeconds))} |`);
  }
}
