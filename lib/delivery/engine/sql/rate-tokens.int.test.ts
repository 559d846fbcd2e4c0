// The bucket a claim takes whole tokens from (rate-tokens.ts): a bucket never looked at holds its burst exactly,
// every time (the clock read twice gave 1.99999998 of 2 in ~3 % of evaluations); otherwise what it held, refilled
// at its rate, up to its burst.
import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { rateTokensNow } from "./rate-tokens";

useTestDatabase();

const bucket = (fields: string) => `(select ${fields}) e`;

describe("a rate-limited destination's bucket", () => {
  it("holds its whole burst when never looked at, in each of 100,000 evaluations", async () => {
    const [row] = await getSql().unsafe<{ short: number; evaluated: number }[]>(`
      select count(*) filter (where floor(${rateTokensNow("e")}) < 2)::int as short, count(*)::int as evaluated
      from generate_series(1, 100000) g,
        ${bucket("2::int as rate_burst, null::float8 as rate_tokens, null::timestamptz as rate_refilled_at, 0.02::float8 as rate_per_second")}`);
    expect(row).toEqual({ short: 0, evaluated: 100_000 });
  });

  it("refills at its rate since it was last looked at, up to its burst", async () => {
    const [row] = await getSql().unsafe<{ refilled: number; capped: number }[]>(`
      select (select ${rateTokensNow("e")} from ${bucket("3::int as rate_burst, 0.5::float8 as rate_tokens, clock_timestamp() - interval '10 seconds' as rate_refilled_at, 0.1::float8 as rate_per_second")})::float8 as refilled,
             (select ${rateTokensNow("e")} from ${bucket("3::int as rate_burst, 0::float8 as rate_tokens, clock_timestamp() - interval '1 hour' as rate_refilled_at, 0.1::float8 as rate_per_second")})::float8 as capped`);
    expect(row!.refilled).toBeGreaterThanOrEqual(1.5);
    expect(row!.refilled).toBeLessThan(1.6);
    expect(row!.capped).toBe(3);
  });
});
