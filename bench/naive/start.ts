// The naive implementation beside the product, on the same server and machine: its own database
// (bench/naive/database.ts), its ingest (server.ts) and its worker (worker.ts), each a process of its
// own; stop() ends both and drops the database.
import { spawn, type ChildProcess } from "node:child_process";
import postgres from "postgres";
import { BENCH_APPLICATION_NAME } from "../support/cpu";
import { createNaiveDatabase, type NaiveDatabase } from "./database";

export interface Naive {
  database: NaiveDatabase;
  /** The ingest's base URL: POST `${url}/in/<endpoint>`. */
  url: string;
  server: ChildProcess;
  worker: ChildProcess;
  /** Whether every stored webhook has been delivered. */
  allDelivered(): Promise<boolean>;
  stop(): Promise<void>;
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once("exit", () => resolve()));

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  const killed = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited(child);
  clearTimeout(killed);
}

export async function startNaive(options: {
  admin: postgres.Sql;
  /** Any database URL on the server: the naive's database is made beside it. */
  serverUrl: string;
  /** The naive database's name. */
  name: string;
  /** Endpoint key → Standard Webhooks secret. */
  secrets: Record<string, string>;
  destinationUrl: string;
  port?: number;
  concurrency: number;
}): Promise<Naive> {
  const database = await createNaiveDatabase(options.admin, options.serverUrl, options.name);
  const node = (file: string, env: Record<string, string>) =>
    spawn(process.execPath, ["--import", "tsx", file], { env: { ...process.env, NAIVE_DATABASE_URL: database.url, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const server = node("bench/naive/server.ts", { NAIVE_SECRETS: JSON.stringify(options.secrets), NAIVE_PORT: String(options.port ?? 0) });
  const worker = node("bench/naive/worker.ts", { NAIVE_DESTINATION: options.destinationUrl, NAIVE_CONCURRENCY: String(options.concurrency) });
  worker.stdout!.resume();
  // The bench's own queries, named so that the CpuMeter does not count them as the naive's.
  const watch = postgres(database.url, { max: 1, onnotice: () => {}, connection: { application_name: BENCH_APPLICATION_NAME } });
  const stop = async () => {
    await Promise.all([stopProcess(server), stopProcess(worker)]);
    await watch.end();
    await database.drop();
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = "";
      server.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        const listening = /listening (\d+)/.exec(out);
        if (listening) resolve(Number(listening[1]));
      });
      server.once("exit", (code) => reject(new Error(`the naive server exited with ${code}: ${out}`)));
    });
    return {
      database,
      url: `http://127.0.0.1:${port}`,
      server,
      worker,
      allDelivered: async () => !(await watch`select exists (select 1 from webhooks where delivered_at is null) as left`)[0]!.left,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
