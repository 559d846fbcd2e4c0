// Once per `vitest run`: a template database with our migrations and graphile-worker's schema.
// Each integration test file clones it (test/db.ts) and the run drops everything it made.
import { randomBytes } from "node:crypto";
import path from "node:path";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type EmbeddedServer } from "@/lib/runtime/embedded-postgres";
import { withDatabase } from "@/lib/runtime/database-url";
import { migrateDatabase } from "@/lib/runtime/migrate";

declare module "vitest" {
  export interface ProvidedContext {
    adminUrl: string;
    templateDatabase: string;
    runPrefix: string;
  }
}

export default async function setup(project: TestProject) {
  let embedded: EmbeddedServer | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    embedded = await startEmbeddedPostgres(path.resolve(".data/test-pg"), Number(process.env.TEST_PG_PORT ?? 54330));
    adminUrl = embedded.adminUrl;
  }
  const runPrefix = `inbox_test_${randomBytes(4).toString("hex")}`;
  const templateDatabase = `${runPrefix}_template`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${templateDatabase}"`);
  await migrateDatabase(withDatabase(adminUrl, templateDatabase));

  project.provide("adminUrl", adminUrl);
  project.provide("templateDatabase", templateDatabase);
  project.provide("runPrefix", runPrefix);

  return async () => {
    const rows = await admin`select datname from pg_database where datname like ${`${runPrefix}%`}`;
    for (const { datname } of rows) await admin.unsafe(`drop database if exists "${datname}" with (force)`);
    await admin.end();
    await embedded?.stop();
  };
}
