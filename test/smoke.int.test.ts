import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "./db";

useTestDatabase();

describe("the test database", () => {
  it("has our tables and graphile-worker's schema", async () => {
    const [row] = await getSql()`select to_regclass('public.deliveries') as deliveries, to_regclass('graphile_worker.jobs') as jobs`;
    expect(row.deliveries).toBe("deliveries");
    expect(row.jobs).not.toBeNull();
  });
});
