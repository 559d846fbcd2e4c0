// Runs bench/neighbours/flood.ts in its own process (its load must not share the bench's event loop)
// and returns what it printed last: a signed flood of one endpoint on `connections` connections,
// each request's body made as `body` says (BENCH_BODY's unless told otherwise; FLOOD_BODY in the child).
import { spawn } from "node:child_process";
import { BENCH_BODY, type BenchBody } from "./signed-webhook";

export interface Flood { requests: number; perSecond: number; errors: number; timeouts: number; statusCodes: Record<string, { count: number }>; p50: number; p99: number; cpuSeconds: number }

export function flood(url: string, secret: string, seconds: number, connections: number, body: BenchBody = BENCH_BODY): Promise<Flood> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/neighbours/flood.ts"], {
      env: { ...process.env, FLOOD_URL: url, FLOOD_SECRET: secret, FLOOD_SECONDS: String(seconds), FLOOD_CONNECTIONS: String(connections), FLOOD_BODY: body.spec },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout!.on("data", (chunk) => (out += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").at(-1)!) as Flood) : reject(new Error(`flood exited with ${code}`))));
  });
}
