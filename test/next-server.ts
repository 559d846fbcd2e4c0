// Starts the production Next.js server (building it first when stale) for tests that need real HTTP.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { configFrom } from "@/lib/config/config";
import { ensureNextBuild, nextStartArgs } from "@/lib/runtime/next-build";

/** NEXT_NODE_ARGS: extra Node arguments for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile a benchmark. */
const profileArgs = () => (process.env.NEXT_NODE_ARGS ?? "").split(" ").filter(Boolean);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

export interface RunningServer {
  url: string;
  child: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startNextServer(options: { databaseUrl: string; port?: number; env?: Record<string, string | undefined> }): Promise<RunningServer> {
  await ensureNextBuild("test");
  const port = options.port ?? (await freePort());
  const url = `http://localhost:${port}`;
  const env = { ...process.env, ...options.env, DATABASE_URL: options.databaseUrl, APP_URL: options.env?.APP_URL ?? url, PORT: String(port), NEXT_TELEMETRY_DISABLED: "1" };
  const child = spawn(process.execPath, [...profileArgs(), ...nextStartArgs(process.cwd(), port, configFrom(env))], {
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
    try {
      await fetch(`${url}/api/health`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error("next start did not answer within 60 s");
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    child,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
