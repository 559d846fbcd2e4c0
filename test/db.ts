// Gives the calling test file its own database, cloned from the run's migrated template, and points
// DATABASE_URL (read lazily by db/index.ts) at it.
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, inject } from "vitest";
import { closeDb } from "@/db";
import { withDatabase } from "@/lib/runtime/database-url";

export async function createTestDatabase(): Promise<string> {
  const adminUrl = inject("adminUrl");
  const name = `${inject("runPrefix")}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    // Cloning needs the template idle; concurrent clones can collide, so retry briefly.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(`create database "${name}" template "${inject("templateDatabase")}"`);
        break;
      } catch (error) {
        if (attempt >= 20) throw error;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  return withDatabase(adminUrl, name);
}

/** Call at the top of an integration test file. */
export function useTestDatabase(): { url: () => string } {
  let url = "";
  beforeAll(async () => {
    url = await createTestDatabase();
    process.env.DATABASE_URL = url;
  });
  afterAll(async () => {
    await closeDb();
  });
  return { url: () => url };
}
