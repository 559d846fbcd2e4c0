// The environment the web server and the worker run with: database, auth secret, public URL.
// Shared by `npm start` (everything on one machine) and `npm run start:web` (production).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { config, configFrom } from "@/lib/config/config";
import { withDatabase } from "./database-url";
import type { EmbeddedServer } from "./embedded-postgres";

export interface ResolvedEnvironment {
  /** process.env plus DATABASE_URL, AUTH_SECRET, PORT, APP_URL: give it to the children. */
  env: NodeJS.ProcessEnv;
  databaseUrl: string;
  authSecret: string;
  port: number;
  appUrl: string;
  dataDir: string;
  /** Set when we started an embedded PostgreSQL; stop it last. */
  embedded?: EmbeddedServer;
}

const EMBEDDED_DATABASE = "inbox";

async function startEmbeddedDatabase(dataDir: string, log: (line: string) => void) {
  // Imported only here: embedded-postgres hooks process signals as soon as it loads.
  const { startEmbeddedPostgres } = await import("./embedded-postgres");
  const port = config().EMBEDDED_PG_PORT;
  const embedded = await startEmbeddedPostgres(path.join(dataDir, "pg"), port);
  const admin = postgres(embedded.adminUrl, { max: 1, onnotice: () => {} });
  try {
    const existing = await admin`select 1 from pg_database where datname = ${EMBEDDED_DATABASE}`;
    if (existing.length === 0) await admin.unsafe(`create database "${EMBEDDED_DATABASE}"`);
  } catch (error) {
    await embedded.stop();
    throw error;
  } finally {
    await admin.end();
  }
  log(`DATABASE_URL is not set: using the embedded PostgreSQL on port ${port} (data under ${path.join(dataDir, "pg")})`);
  return { embedded, url: withDatabase(embedded.adminUrl, EMBEDDED_DATABASE) };
}

/** Reads `<dataDir>/auth-secret`, creating it (mode 600) on first use. */
function persistedAuthSecret(dataDir: string, log: (line: string) => void): string {
  const file = path.join(dataDir, "auth-secret");
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
      log(`AUTH_SECRET is not set: generated one and saved it in ${file} (set AUTH_SECRET to share one across machines)`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  return readFileSync(file, "utf8").trim();
}

export async function resolveEnvironment({
  allowEmbeddedDatabase,
  log,
}: {
  allowEmbeddedDatabase: boolean;
  log: (line: string) => void;
}): Promise<ResolvedEnvironment> {
  const configured = config();
  const dataDir = path.resolve(configured.INBOX_DATA_DIR);
  let databaseUrl = configured.DATABASE_URL;
  let embedded: EmbeddedServer | undefined;
  if (!databaseUrl) {
    if (!allowEmbeddedDatabase) throw new Error("DATABASE_URL is required (postgres://user:password@host:5432/database)");
    const started = await startEmbeddedDatabase(dataDir, log);
    embedded = started.embedded;
    databaseUrl = started.url;
  }
  let authSecret = configured.AUTH_SECRET;
  try {
    authSecret ??= persistedAuthSecret(dataDir, log);
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const { PORT: port, APP_URL: appUrl } = configured;
  const env: NodeJS.ProcessEnv = {
    ...process.env, NEXT_TELEMETRY_DISABLED: "1", DATABASE_URL: databaseUrl, AUTH_SECRET: authSecret, PORT: String(port), APP_URL: appUrl,
    // Private destinations are allowed by default with it (lib/config/schema.ts), and the dashboard says so.
    INBOX_EMBEDDED_DATABASE: embedded ? "true" : "false",
  };
  if (embedded && configFrom(env).INBOX_ALLOW_PRIVATE_DESTINATIONS) {
    log("destinations on this machine and private networks are allowed (the embedded database's default; INBOX_ALLOW_PRIVATE_DESTINATIONS=false refuses them)");
  }
  return { env, databaseUrl, authSecret, port, appUrl, dataDir, embedded };
}
