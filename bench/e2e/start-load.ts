// Starts bench/e2e's load generator (bench/e2e/load.ts), a process of its own.
import { spawn } from "node:child_process";
import type { OpenLoopOptions } from "../support/open-loop";
import type { Loaded } from "./figures";

/** Starts the load generator; it sends once told to go. */
export async function startLoad(options: OpenLoopOptions): Promise<{ go: () => Promise<Loaded> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/e2e/load.ts"], {
    env: { ...process.env, BENCH_LOAD: JSON.stringify(options) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  for (let i = 0; !out.startsWith("ready\n"); i++) {
    if (child.exitCode !== null || i > 600) throw new Error(`the load generator did not start: ${out}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    go: async () => {
      child.stdin!.end("go\n");
      const code = await exited;
      if (code !== 0) throw new Error(`the load generator exited with ${code}`);
      return JSON.parse(out.trim().split("\n").at(-1)!) as Loaded;
    },
  };
}
