// The fault suites' harness: a PRIVATE PostgreSQL per test file (so a test can stop it), the app run
// the way `npm start` runs it (lib/runtime/start.ts, its own process group, every byte it and its
// children print kept), a real destination that records deliveries by x-inbox-delivery-id, and a
// signed-ingest load generator. Everything is stopped and removed by `cleanUp()` (afterAll), and
// by a process exit hook should the test runner die first.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { Webhook } from "standardwebhooks";
import { expect } from "vitest";
import { withDatabase } from "@/lib/runtime/database-url";
import type { EmbeddedServer } from "@/lib/runtime/embedded-postgres";
import { migrateDatabase } from "@/lib/runtime/migrate";
import { freePort } from "@/test/next-server";

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns something truthy, or throws after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs: number, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * One HTTP request on a connection of its own (node:http, no agent). fetch's pooled keep-alive
 * connections race the server's keep-alive timeout ("other side closed") after a quiet spell, and
 * a fault test must tell the app's failures from the client's.
 */
export function request(url: string, { method = "GET", headers = {}, body, timeoutMs = 20_000 }: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, connection: "close" }, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) answerHeaders.set(name, Array.isArray(value) ? value.join(", ") : value);
        resolve({ status: res.statusCode ?? 0, headers: answerHeaders, text: Buffer.concat(chunks).toString("utf8") });
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

// ---------------------------------------------------------------------------------------------
// Clean-up registry: afterAll calls cleanUp(); the exit hook kills what is left synchronously.

const cleanUps: (() => Promise<void>)[] = [];
const killNow: (() => void)[] = [];
process.once("exit", () => killNow.forEach((kill) => kill()));

export async function cleanUp(): Promise<void> {
  for (const fn of cleanUps.splice(0).reverse()) await fn().catch((error) => console.error(`[faults] clean-up: ${String(error)}`));
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  chmodSync(dir, 0o755); // PostgreSQL runs as the postgres user when we are root
  cleanUps.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// ---------------------------------------------------------------------------------------------
// Private PostgreSQL

export interface PrivatePostgres {
  /** URL of the app's database ("inbox"). */
  url: string;
  port: number;
  /** Fast shutdown: every connection is cut, like a database going away. */
  stop(): Promise<void>;
  start(): Promise<void>;
  running(): boolean;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = tempDir("inbox-fault-pg-");
  const baseDir = path.join(dir, "pg");
  const port = await freePort();
  // Imported here: embedded-postgres hooks process signals as soon as it loads.
  const { startEmbeddedPostgres } = await import("@/lib/runtime/embedded-postgres");
  let server: EmbeddedServer | undefined = await startEmbeddedPostgres(baseDir, port);
  const killPostmaster = () => {
    const pidFile = path.join(baseDir, "postmaster.pid");
    if (!existsSync(pidFile)) return;
    const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
    try {
      if (pid > 0) process.kill(pid, "SIGQUIT"); // immediate shutdown, children included
    } catch {}
  };
  killNow.push(killPostmaster);
  cleanUps.push(async () => {
    await server?.stop().catch(() => {});
    server = undefined;
    killPostmaster();
  });
  const adminUrl = server.adminUrl;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database inbox`);
  await admin.end();
  const url = withDatabase(adminUrl, "inbox");
  await migrateDatabase(url);
  return {
    url,
    port,
    running: () => server !== undefined,
    async stop() {
      await server?.stop();
      server = undefined;
    },
    async start() {
      if (!server) server = await startEmbeddedPostgres(baseDir, port);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The app, as `npm start` runs it

export const AUTH_SECRET = "fault-suite-auth-secret-0123456789abcdef";

export interface App {
  url: string;
  port: number;
  /** Everything start, the web server and the worker printed (stdout and stderr), over every run. */
  output(): string;
  /** The start process of the current run. */
  process(): ChildProcess;
  /** PIDs of the current start process's children whose command line matches. */
  childPids(match: RegExp): number[];
  /** Starts `npm start` (again); resolves once /api/health says the database and a worker are ok. */
  start(timeoutMs?: number): Promise<void>;
  /** SIGKILL to the start process and all its children (its process group). */
  kill(): Promise<void>;
  /** SIGTERM to the start process; resolves with its exit code. */
  stop(): Promise<number | null>;
  health(): Promise<{ status: number; body: unknown }>;
}

export async function createApp(databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<App> {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const dataDir = tempDir("inbox-fault-data-");
  let output = "";
  let current: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);

  const killGroup = () => {
    if (current?.pid) {
      try {
        process.kill(-current.pid, "SIGKILL");
      } catch {}
    }
  };
  killNow.push(killGroup);
  cleanUps.push(async () => {
    killGroup();
    await exited;
    // FAULTS_LOG_DIR=dir keeps what the app printed, one file per test file, for a look afterwards.
    if (process.env.FAULTS_LOG_DIR) {
      mkdirSync(process.env.FAULTS_LOG_DIR, { recursive: true });
      writeFileSync(path.join(process.env.FAULTS_LOG_DIR, `${path.basename(expect.getState().testPath ?? "app")}-${port}.log`), output);
    }
  });

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    APP_URL: url,
    AUTH_SECRET,
    INBOX_DATA_DIR: dataDir,
    INBOX_ALLOW_PRIVATE_DESTINATIONS: "true",
    NEXT_TELEMETRY_DISABLED: "1",
    // Several scenarios share two cores: a smaller worker, and no rate limit in the way of the load.
    WORKER_CONCURRENCY: "20",
    ORG_INGEST_RATE: "10000",
    ...extraEnv,
  };
  for (const name of ["NODE_OPTIONS", "VITEST", "VITEST_POOL_ID", "VITEST_WORKER_ID", "TEST"]) delete env[name];

  const health = async () => {
    try {
      const response = await request(`${url}/api/health`, { timeoutMs: 5_000 });
      return { status: response.status, body: JSON.parse(response.text) };
    } catch {
      return { status: 0, body: null };
    }
  };

  const app: App = {
    url,
    port,
    output: () => output,
    process: () => current!,
    childPids(match) {
      if (!current?.pid) return [];
      let listing = "";
      try {
        listing = execFileSync("ps", ["--ppid", String(current.pid), "-o", "pid=,args="], { encoding: "utf8" });
      } catch {
        return []; // ps exits 1 when there are none
      }
      return listing
        .split("\n")
        .map((line) => line.trim().match(/^(\d+)\s+(.*)$/))
        .filter((m): m is RegExpMatchArray => m !== null && match.test(m[2]))
        .map((m) => Number(m[1]));
    },
    async start(timeoutMs = 240_000) {
      const child = spawn(process.execPath, ["--import", "tsx", "lib/runtime/start.ts"], {
        env,
        detached: true, // its own process group: web server and worker included, so kill() takes them all
        stdio: ["ignore", "pipe", "pipe"],
      });
      current = child;
      child.stdout!.on("data", (chunk) => (output += chunk));
      child.stderr!.on("data", (chunk) => (output += chunk));
      exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
      await until(
        "npm start to report a healthy database and worker",
        async () => {
          if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output.slice(-3000)}`);
          const answer = await health();
          return answer.status === 200 && JSON.stringify(answer.body) === JSON.stringify({ database: "ok", worker: "ok" });
        },
        timeoutMs,
        300,
      );
    },
    async kill() {
      killGroup();
      await exited;
      // The group's other members (web server, worker) are gone with it; give the kernel a moment.
      await until("the app's port to close", async () => (await health()).status === 0, 10_000, 100);
    },
    async stop() {
      current?.kill("SIGTERM");
      return exited;
    },
    health,
  };
  return app;
}

// ---------------------------------------------------------------------------------------------
// Organization, endpoints, REST

export interface Tenant {
  organizationId: string;
  apiKey: string;
  api(method: string, pathname: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }>;
}

/** `npm run inbox -- org:create` against the private database (its output is not the app's log). */
export async function createTenant(app: App, databaseUrl: string, name = "Faults"): Promise<Tenant> {
  const email = `owner-${Date.now()}@example.com`;
  const out = execFileSync(process.execPath, ["--import", "tsx", "lib/cli/inbox.ts", "org:create", "--name", name, "--email", email, "--password", "a-long-password-123"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, AUTH_SECRET },
    encoding: "utf8",
  });
  const { organizationId, apiKey } = JSON.parse(out.trim().split("\n").pop()!);
  return {
    organizationId,
    apiKey,
    async api(method, pathname, body) {
      const response = await request(`${app.url}/api/v1${pathname}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: 15_000,
      });
      const text = response.text;
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: response.status, body: parsed, headers: response.headers };
    },
  };
}

export interface CreatedEndpoint {
  id: string;
  secret: string;
}

export async function createEndpoint(tenant: Tenant, settings: Record<string, unknown>): Promise<CreatedEndpoint> {
  const answer = await tenant.api("POST", "/endpoints", { name: `ep-${Math.random().toString(36).slice(2, 8)}`, provider: "standard-webhooks", retryBaseSeconds: 1, ...settings });
  if (answer.status !== 201) throw new Error(`creating an endpoint: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { id: answer.body.id, secret: answer.body.secret ?? (settings.secret as string) };
}

// ---------------------------------------------------------------------------------------------
// The usual stage

export interface Stage {
  pg: PrivatePostgres;
  app: App;
  tenant: Tenant;
  destination: RecordingDestination;
  endpoint: CreatedEndpoint;
}

/** A private PostgreSQL, the app started on it as `npm start` runs it, one organization, a recording destination and one endpoint to it. */
export async function startStage(options: { appEnv?: Record<string, string>; endpoint?: Record<string, unknown> } = {}): Promise<Stage> {
  const pg = await startPrivatePostgres();
  const app = await createApp(pg.url, options.appEnv);
  await app.start();
  const tenant = await createTenant(app, pg.url);
  const destination = await startDestination();
  const endpoint = await createEndpoint(tenant, { destinationUrl: destination.url(), ...options.endpoint });
  return { pg, app, tenant, destination, endpoint };
}

// ---------------------------------------------------------------------------------------------
// Destination

export interface RecordingDestination {
  /** The URL to give an endpoint (127.0.0.1; with `credentials`, as user:password@). */
  url(credentials?: string): string;
  /** Attempts received per x-inbox-delivery-id. */
  received: Map<string, number>;
  /** Every request, in order. */
  requests: { deliveryId: string; attempt: string; at: number; headers: http.IncomingHttpHeaders }[];
  /** "ok" answers 200, "fail" 503, "hang" never answers (until released by another mode). */
  setMode(mode: "ok" | "fail" | "hang"): void;
  /** Stops listening and drops every connection: connection refused, like a destination that is down. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startDestination(): Promise<RecordingDestination> {
  let mode: "ok" | "fail" | "hang" = "ok";
  const received = new Map<string, number>();
  const requests: RecordingDestination["requests"] = [];
  const hung: http.ServerResponse[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const deliveryId = String(req.headers["x-inbox-delivery-id"] ?? "");
      requests.push({ deliveryId, attempt: String(req.headers["x-inbox-attempt"] ?? ""), at: Date.now(), headers: req.headers });
      if (mode === "hang") return void hung.push(res);
      if (mode === "fail") {
        res.statusCode = 503;
        return void res.end("down for maintenance");
      }
      received.set(deliveryId, (received.get(deliveryId) ?? 0) + 1);
      res.end("ok");
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const down = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      sockets.forEach((socket) => socket.destroy());
    });
  cleanUps.push(down);
  return {
    url: (credentials) => `http://${credentials ? `${credentials}@` : ""}127.0.0.1:${port}/hook`,
    received,
    requests,
    setMode(next) {
      mode = next;
      if (next !== "hang") hung.splice(0).forEach((res) => res.destroy());
    },
    down,
    up: () => new Promise<void>((resolve, reject) => (server.listening ? resolve() : server.listen(port, "127.0.0.1", resolve).once("error", reject))),
    close: down,
  };
}

// ---------------------------------------------------------------------------------------------
// Signed ingest load

export interface IngestResult {
  status: number; // 0: no answer (connection refused, reset, timeout)
  deliveryId?: string;
  retryAfter?: string | null;
  /** When the request was sent, and when its answer (or failure) came. */
  sentAt: number;
  at: number;
}

export interface IngestLoad {
  results: IngestResult[];
  /** Delivery ids of every 200. */
  accepted(): Set<string>;
  stop(): Promise<void>;
}

/** Sends one signed Standard Webhooks request; never throws. */
export async function sendSigned(app: App, endpoint: CreatedEndpoint, body: string, extraHeaders: Record<string, string> = {}, query = ""): Promise<IngestResult> {
  const sentAt = Date.now();
  const id = `msg_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const at = new Date();
  const headers = {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(endpoint.secret).sign(id, at, body),
    ...extraHeaders,
  };
  try {
    const response = await request(`${app.url}/in/${endpoint.id}${query}`, { method: "POST", headers, body, timeoutMs: 20_000 });
    const text = response.text;
    let deliveryId: string | undefined;
    try {
      deliveryId = JSON.parse(text).id;
    } catch {}
    return { status: response.status, deliveryId, retryAfter: response.headers.get("retry-after"), sentAt, at: Date.now() };
  } catch {
    return { status: 0, sentAt, at: Date.now() };
  }
}

/** `connections` loops, each sending a request every `pauseMs` after the previous answer. */
export function startIngestLoad(
  app: App,
  endpoint: CreatedEndpoint,
  { connections = 2, pauseMs = 50, body = (i: number) => JSON.stringify({ type: "fault.test", n: i }), headers = {} as Record<string, string>, query = "" } = {},
): IngestLoad {
  const results: IngestResult[] = [];
  let running = true;
  let n = 0;
  const loops = Array.from({ length: connections }, async () => {
    while (running) {
      results.push(await sendSigned(app, endpoint, body(n++), headers, query));
      await sleep(pauseMs);
    }
  });
  return {
    results,
    accepted: () => new Set(results.filter((r) => r.status === 200 && r.deliveryId).map((r) => r.deliveryId!)),
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** A summary of answers by status, e.g. {"200": 812, "0": 3}. */
export function countByStatus(results: IngestResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

/** Waits until every id has reached the destination (a 2xx answered); returns the ones still missing on timeout. */
export async function waitDelivered(destination: RecordingDestination, ids: Iterable<string>, timeoutMs: number): Promise<string[]> {
  const wanted = [...ids];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const missing = wanted.filter((id) => !destination.received.has(id));
    if (missing.length === 0 || Date.now() > deadline) return missing;
    await sleep(500);
  }
}

/** Prints a measured figure so the run's log carries it (the report quotes these lines). */
export function report(scenario: string, figures: Record<string, unknown>): void {
  console.log(`[faults] ${scenario}: ${JSON.stringify(figures)}`);
}
