// A fresh database for one benchmark run, on DATABASE_URL's server (default the local one), migrated.
// The lib verbs the bench calls and the processes it starts use it; drop() removes it at the end.
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { closeDb } from "@/db";
import { withDatabase } from "@/lib/runtime/database-url";
import { migrateDatabase } from "@/lib/runtime/migrate";

export interface BenchDatabase {
  name: string;
  url: string;
  /** A connection to the server's admin database (not this one, so its queries cost this database nothing). */
  admin: postgres.Sql;
  drop(): Promise<void>;
}

export async function createBenchDatabase(prefix: string): Promise<BenchDatabase> {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = withDatabase(adminUrl, name);
  process.env.DATABASE_URL = url;
  // The benches' destinations listen on loopback.
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  const drop = async () => {
    await closeDb();
    await admin.unsafe(`drop database if exists "${name}" with (force)`).catch((error) => console.error(`dropping ${name}: ${String(error)}`));
    await admin.end();
  };
  try {
    await migrateDatabase(url);
  } catch (error) {
    await drop();
    throw error;
  }
  return { name, url, admin, drop };
}
