// `npm start` on a fresh data directory: embedded database, build if needed, web + worker, clean stop.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@/test/next-server";

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), "inbox-start-test-"));
chmodSync(dataDir, 0o755); // PostgreSQL runs as the postgres user when we are root
let start: ChildProcess | undefined;

afterAll(() => {
  // On failure: the start process leads its own process group (web server, worker, PostgreSQL).
  if (start?.pid && start.exitCode === null && start.signalCode === null) {
    try {
      process.kill(-start.pid, "SIGKILL");
    } catch {}
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm start with no DATABASE_URL runs everything and stops cleanly on SIGTERM", () => {
  it("reports a healthy database and worker, then exits 0 with PostgreSQL stopped", { timeout: 300_000 }, async () => {
    const [port, pgPort] = await Promise.all([freePort(), freePort()]);
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), EMBEDDED_PG_PORT: String(pgPort), INBOX_DATA_DIR: dataDir };
    for (const name of ["DATABASE_URL", "AUTH_SECRET", "APP_URL", "INBOX_ALLOW_PRIVATE_DESTINATIONS", "INBOX_EMBEDDED_DATABASE"]) delete env[name];
    let output = "";
    start = spawn(process.execPath, ["--import", "tsx", "lib/runtime/start.ts"], {
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    start.stdout!.on("data", (chunk) => (output += chunk));
    start.stderr!.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => start!.once("exit", (code) => resolve(code)));

    // The first run may build the Next.js app.
    const deadline = Date.now() + 240_000;
    let health: unknown;
    while (Date.now() < deadline && start.exitCode === null) {
      health = await fetch(`http://localhost:${port}/api/health`)
        .then((response) => response.json())
        .catch(() => undefined);
      if (JSON.stringify(health) === JSON.stringify({ database: "ok", worker: "ok" })) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(health, output).toEqual({ database: "ok", worker: "ok" });
    const secret = readFileSync(path.join(dataDir, "auth-secret"), "utf8").trim();
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(output).not.toContain(secret);
    // The children run on the embedded database, where a local destination is allowed by default (issue #47).
    expect(output).toContain("destinations on this machine and private networks are allowed");

    process.kill(start.pid!, "SIGTERM");
    expect(await exited, output).toBe(0);
    expect(await accepts(pgPort)).toBe(false);
    expect(existsSync(path.join(dataDir, "pg", "postmaster.pid"))).toBe(false);
    expect(await accepts(port)).toBe(false);
  });
});
