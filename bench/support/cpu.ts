// Where the CPU went during a stretch of a bench, from /proc: named processes (web server, worker),
// one database's server processes (PostgreSQL backends, autovacuum of that database; not the
// server's shared background processes), this bench process, and the whole machine.
import { readFileSync } from "node:fs";
import type postgres from "postgres";

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) a process has used so far; 0 when it is gone. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** CPU seconds the whole machine has spent busy (all cores). */
function machineBusySeconds(): number {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
  const idle = fields[3]! + fields[4]!;
  return (fields.reduce((sum, n) => sum + n, 0) - idle) / CLOCK_TICKS;
}

/** Linux PSI: total µs that some task waited for a CPU; null where the kernel does not say. */
function cpuWaitMicros(): number | null {
  try {
    return Number(/some .*total=(\d+)/.exec(readFileSync("/proc/pressure/cpu", "utf8"))![1]);
  } catch {
    return null;
  }
}

/** Connections a bench makes for its own queries during a measurement: named so, they are not counted as the product's. */
export const BENCH_APPLICATION_NAME = "bench";

export interface CpuUse {
  /** Wall-clock seconds measured. */
  seconds: number;
  /** CPU seconds per named process. */
  processes: Record<string, number>;
  /** CPU seconds of the database's server processes. */
  database: number;
  /** CPU seconds of this bench process. */
  bench: number;
  /** CPU seconds the machine was busy, everything included. */
  machine: number;
  /** Share of the time some task waited for a core (PSI), null where unknown. */
  pressure: number | null;
}

/**
 * Measures from start() to stop(). Processes are read at both ends and at each sample(); a database
 * backend that appears meanwhile counts from its start, one that ends counts up to its last sample,
 * so sample() now and then when backends come and go.
 */
export class CpuMeter {
  private started = 0;
  private benchAtStart = 0;
  private machineAtStart = 0;
  private waitAtStart: number | null = null;
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();

  constructor(private readonly options: { processes?: Record<string, number | undefined>; database?: { admin: postgres.Sql; name: string } }) {}

  private async pids(): Promise<number[]> {
    const named = Object.values(this.options.processes ?? {}).filter((pid): pid is number => pid !== undefined);
    const database = this.options.database;
    if (!database) return named;
    const rows = await database.admin<{ pid: number }[]>`
      select pid from pg_stat_activity where datname = ${database.name} and application_name is distinct from ${BENCH_APPLICATION_NAME}`;
    return [...named, ...rows.map((row) => row.pid)];
  }

  async sample(): Promise<void> {
    for (const pid of await this.pids()) {
      const seconds = cpuSeconds(pid);
      if (seconds === 0) continue;
      // First seen after start(): a backend born meanwhile, counted from zero.
      if (!this.first.has(pid)) this.first.set(pid, this.started ? 0 : seconds);
      this.last.set(pid, seconds);
    }
  }

  async start(): Promise<this> {
    this.first.clear();
    this.last.clear();
    this.started = 0;
    await this.sample();
    this.started = performance.now();
    this.benchAtStart = cpuSeconds(process.pid);
    this.machineAtStart = machineBusySeconds();
    this.waitAtStart = cpuWaitMicros();
    return this;
  }

  async stop(): Promise<CpuUse> {
    await this.sample();
    const seconds = (performance.now() - this.started) / 1000;
    const used = (pid: number | undefined) => (pid === undefined ? 0 : (this.last.get(pid) ?? 0) - (this.first.get(pid) ?? 0));
    const named = this.options.processes ?? {};
    const namedPids = new Set(Object.values(named));
    const database = [...this.last.keys()].filter((pid) => !namedPids.has(pid)).reduce((sum, pid) => sum + used(pid), 0);
    const wait = cpuWaitMicros();
    return {
      seconds,
      processes: Object.fromEntries(Object.entries(named).map(([name, pid]) => [name, used(pid)])),
      database,
      bench: cpuSeconds(process.pid) - this.benchAtStart,
      machine: machineBusySeconds() - this.machineAtStart,
      pressure: wait === null || this.waitAtStart === null ? null : (wait - this.waitAtStart) / 1e6 / seconds,
    };
  }
}
