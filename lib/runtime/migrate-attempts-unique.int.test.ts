// Migration 0013 on a database that already holds duplicated attempt rows (what the race it closes
// left behind): the upgrade keeps one row per (delivery, number) — a real outcome over an
// "interrupted" placeholder, else the oldest — and every delivery and its other attempts.
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { useUpgradeDatabase } from "@/test/migrations-before";
import { migrateDatabase } from "./migrate";

const { older, create } = useUpgradeDatabase("0013_attempts_unique_number");

describe("migration 0013 (one attempt row per number) on a database with duplicated attempts", () => {
  it("keeps a real outcome over an 'interrupted' one, else the oldest, and nothing else is lost", async () => {
    const url = await create();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrate(drizzle({ client: sql }), { migrationsFolder: older.folder });
      await sql`insert into organizations (id, name) values ('org_m', 'M')`;
      await sql`insert into endpoints (id, organization_id, name, provider, destination_url) values ('ep_m', 'org_m', 'M', 'none', 'http://127.0.0.1:9/')`;
      for (const id of ["dlv_a", "dlv_b"]) {
        await sql`insert into deliveries (id, organization_id, endpoint_id, external_id, status, headers, body, size_bytes)
          values (${id}, 'org_m', 'ep_m', ${id}, 'delivered', '{}', '\\x7b7d', 2)`;
      }
      const attempt = (delivery: string, number: number, statusCode: number | null, error: string | null) =>
        sql`insert into attempts (organization_id, delivery_id, number, trigger, started_at, status_code, error)
          values ('org_m', ${delivery}, ${number}, 'auto', now(), ${statusCode}, ${error})`;
      await attempt("dlv_a", 1, null, "interrupted: the worker stopped during this attempt, so its outcome is unknown");
      await attempt("dlv_a", 1, 503, "HTTP 503");
      await attempt("dlv_a", 2, 200, null);
      await attempt("dlv_a", 2, 200, null); // the same finish, recorded twice
      await attempt("dlv_b", 1, 200, null);

      await migrateDatabase(url);

      const rows = await sql`select delivery_id, number, status_code, error from attempts order by delivery_id, number`;
      expect(rows.map((row) => ({ ...row }))).toEqual([
        { delivery_id: "dlv_a", number: 1, status_code: 503, error: "HTTP 503" },
        { delivery_id: "dlv_a", number: 2, status_code: 200, error: null },
        { delivery_id: "dlv_b", number: 1, status_code: 200, error: null },
      ]);
      expect((await sql`select count(*)::int as n from deliveries`)[0]!.n).toBe(2);
      await expect(attempt("dlv_b", 1, 200, null)).rejects.toMatchObject({ code: "23505" });
    } finally {
      await sql.end();
    }
  });
});
