// A rate-limited destination's bucket now, as SQL over the destinations row `alias`: what it held, refilled at its
// rate since it was last looked at, up to its burst; a bucket never looked at holds its burst. The claim
// (claim.ts), the wake (wake-parked.ts) and the next token's time (../wake-rate-limited.ts) read it so.
// Elapsed is 0 for a bucket never looked at: `clock_timestamp() - coalesce(refilled_at, clock_timestamp())` reads
// the clock twice, and in ~3 % of evaluations the second read is a microsecond later: a fresh bucket of 2 held
// 1.99999998 tokens, and the claim, taking whole tokens, gave a new destination one start fewer than its burst.
export function rateTokensNow(alias: string): string {
  return `least(coalesce(${alias}.rate_burst, 1), coalesce(${alias}.rate_tokens, ${alias}.rate_burst, 1)
    + coalesce(extract(epoch from clock_timestamp() - ${alias}.rate_refilled_at), 0) * ${alias}.rate_per_second)`;
}
