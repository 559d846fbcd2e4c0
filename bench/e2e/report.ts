// bench/e2e's tables: per phase its figures and where the CPU went, the paused phases, the fan-out.
import { cpus, loadavg } from "node:os";
import type { CpuUse } from "../support/cpu";
import type { BenchDestination } from "../support/destination";
import { achieved, failures, micros, ms, type Loaded, type Phase, type WalUse } from "./figures";

/** The targets of issue #13, for the summary. */
const TARGET = { rate: 1_500, ingestP99Ms: 100, sendToDestinationP99Ms: 250, lastDeliveryAfterEndS: 5, databaseMicrosPerWebhook: 400 };

/** The indexing a phase with the worker stopped left undone, done afterwards. */
export interface Owed { cpu: CpuUse; wal: WalUse; webhooks: number }

export function report(phases: Phase[], paused: Phase[], owed: Owed | null, idle: CpuUse, destination: BenchDestination) {
  console.log(`\n| offered /s | achieved /s | ingest p50 / p99 ms | not 200 | delivered / acknowledged | last delivery after the end | send→destination p50 / p99 ms | PostgreSQL CPU µs per webhook | web / worker CPU µs per webhook |`);
  console.log("| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |");
  for (const p of phases) {
    const last = p.lastDeliveryAfterEnd === null ? "—" : `${p.lastDeliveryAfterEnd.toFixed(2)} s`;
    console.log(`| ${p.rate}${p.of === "naive" ? " (naive)" : ""} | ${achieved(p).toFixed(0)} | ${ms(p.load.latency.p50)} / ${ms(p.load.latency.p99)} | ${failures(p.load)} | ${p.delivered} / ${p.load.ok} | ${last} | ${ms(p.sendToDestination.p50)} / ${ms(p.sendToDestination.p99)} | ${micros(p.cpu.database, p).toFixed(0)} | ${micros(p.cpu.processes.web!, p).toFixed(0)} / ${micros(p.cpu.processes.worker!, p).toFixed(0)} |`);
  }
  console.log(`(deliveries that arrived twice over the whole run: ${destination.repeats()})`);

  console.log("\nCPU cores in use on average over each phase (sending, then until the last delivery settled):");
  console.log("| phase | seconds | web server | worker | PostgreSQL (this database) | load generator (its lateness p99 ms; socket wait p99 ms) | bench (destination) | everything else | machine busy | CPU pressure | WAL KB per webhook (checkpoints) |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const cpuRow = (label: string, c: CpuUse, load?: Loaded, wal?: WalUse) => {
    const cores = (x: number) => (x / c.seconds).toFixed(2);
    const generator = load ? `${cores(load.cpuSeconds)} (${ms(load.lateness.p99)}; ${ms(load.socketWait.p99)})` : "—";
    const ours = c.processes.web! + c.processes.worker! + (load?.cpuSeconds ?? 0) + c.database + c.bench;
    const pressure = c.pressure === null ? "?" : `${(c.pressure * 100).toFixed(0)} %`;
    const walPerWebhook = wal && load ? `${(wal.bytes / 1024 / Math.max(1, load.ok)).toFixed(1)} (${wal.checkpoints})` : "—";
    console.log(`| ${label} | ${c.seconds.toFixed(1)} | ${cores(c.processes.web!)} | ${cores(c.processes.worker!)} | ${cores(c.database)} | ${generator} | ${cores(c.bench)} | ${cores(c.machine - ours)} | ${cores(c.machine)} of ${cpus().length} | ${pressure} | ${walPerWebhook} |`);
  };
  cpuRow("idle (nothing sent)", idle);
  for (const p of [...phases, ...paused]) cpuRow(p.label, p.cpu, p.load, p.wal);

  if (paused.length) {
    console.log("\nPaused endpoints (stored, not delivered):");
    console.log("| worker | offered /s | achieved /s | ingest p50 / p99 ms | not 200 | PostgreSQL CPU µs per webhook | web / worker CPU µs per webhook |");
    console.log("| --- | ---: | ---: | ---: | --- | ---: | ---: |");
    for (const p of paused) {
      console.log(`| ${p.label.replace("paused, worker ", "")} | ${p.rate} | ${achieved(p).toFixed(0)} | ${ms(p.load.latency.p50)} / ${ms(p.load.latency.p99)} | ${failures(p.load)} | ${micros(p.cpu.database, p).toFixed(0)} | ${micros(p.cpu.processes.web!, p).toFixed(0)} / ${micros(p.cpu.processes.worker!, p).toFixed(0)} |`);
    }
    const [running, stopped] = paused;
    if (running && stopped) {
      const perWebhook = (cpuSeconds: number, webhooks: number) => (cpuSeconds * 1e6) / Math.max(1, webhooks);
      const runningMicros = micros(running.cpu.database, running);
      const stoppedMicros = micros(stopped.cpu.database, stopped);
      console.log(`PostgreSQL per webhook, worker running ÷ stopped: ${(runningMicros / stoppedMicros).toFixed(2)}× (target ≤ 1.5×)`);
      if (owed) {
        const owedMicros = perWebhook(owed.cpu.database, owed.webhooks);
        console.log(`The stopped phase's bodies made searchable afterwards (the work a running worker does in its phase): ${owedMicros.toFixed(0)} µs per webhook, ` +
          `WAL ${(owed.wal.bytes / 1024 / Math.max(1, owed.webhooks)).toFixed(1)} KB per webhook (${owed.wal.checkpoints} checkpoints), ${owed.cpu.seconds.toFixed(1)} s; ` +
          `running ÷ (stopped + that): ${(runningMicros / (stoppedMicros + owedMicros)).toFixed(2)}×`);
      }
    }
  }

  const at = phases.find((p) => p.rate === TARGET.rate);
  if (at) {
    const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
    const sustained = achieved(at) >= 0.99 * TARGET.rate && at.delivered === at.load.ok && at.load.ok === at.load.sent;
    console.log(`\nTargets at ${TARGET.rate}/s: sustained ${verdict(sustained)} (achieved ${achieved(at).toFixed(0)}/s, ${at.load.sent - at.load.ok} not acknowledged, ${at.load.ok - at.delivered} not delivered); ` +
      `ingest p99 ${ms(at.load.latency.p99)} ms ≤ ${TARGET.ingestP99Ms}: ${verdict(at.load.latency.p99 <= TARGET.ingestP99Ms)}; ` +
      `send→destination p99 ${ms(at.sendToDestination.p99)} ms ≤ ${TARGET.sendToDestinationP99Ms}: ${verdict(at.sendToDestination.p99 <= TARGET.sendToDestinationP99Ms)}; ` +
      `last delivery ${at.lastDeliveryAfterEnd?.toFixed(2) ?? "—"} s after the end ≤ ${TARGET.lastDeliveryAfterEndS}: ${verdict((at.lastDeliveryAfterEnd ?? Infinity) <= TARGET.lastDeliveryAfterEndS)}; ` +
      `PostgreSQL ${micros(at.cpu.database, at).toFixed(0)} µs per webhook ≤ ${TARGET.databaseMicrosPerWebhook}: ${verdict(micros(at.cpu.database, at) <= TARGET.databaseMicrosPerWebhook)}`);
  }
  console.log(`machine: load average ${loadavg().map((n) => n.toFixed(1)).join(" ")} at the end (other sessions' work included)`);
}

/** One destination against three (one filter taking half) at the same offered rate, in the same run. */
export function reportFanOut({ one, three, rows }: { one: Phase; three: Phase; rows: number }) {
  const per = (p: Phase) => micros(p.cpu.database, p);
  console.log(`\nFan-out at ${three.rate}/s: one destination against three (one filter taking half):`);
  console.log("| destinations | achieved /s | ingest p50 / p99 ms | deliveries per request | PostgreSQL CPU µs per request | web / worker CPU µs per request | send→destination p99 ms |");
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const [label, p, perRequest] of [["1", one, 1], ["3", three, rows / Math.max(1, three.load.ok)]] as const) {
    console.log(`| ${label} | ${achieved(p).toFixed(0)} | ${ms(p.load.latency.p50)} / ${ms(p.load.latency.p99)} | ${perRequest.toFixed(2)} | ${per(p).toFixed(0)} | ` +
      `${micros(p.cpu.processes.web!, p).toFixed(0)} / ${micros(p.cpu.processes.worker!, p).toFixed(0)} | ${ms(p.sendToDestination.p99)} |`);
  }
  const ratio = per(three) / per(one);
  console.log(`PostgreSQL per request, three ÷ one: ${ratio.toFixed(2)}× (target ≤ 2×: ${ratio <= 2 ? "met" : "NOT met"})`);
}
