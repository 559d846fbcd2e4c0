// The timing rules of alert mail, in one place.
export const ALERT_TIMING = {
  /** An open pending-age incident mails again after this long (a reminder), never more often. */
  reminderAfterMs: 6 * 3_600_000,
  /** Dead-delivery mail: at most one per endpoint per this interval. */
  deadMailIntervalMs: 3_600_000,
  /** A dead-delivery incident resolves, quietly, once no delivery has gone dead for this long. */
  deadQuietMs: 3_600_000,
  /**
   * Deliveries that went dead in the last few seconds are counted at the next check, so one whose transaction
   * is still committing (its updated_at is its transaction's start) is never skipped by the watermark.
   */
  deadSettleMs: 30_000,
  /** With no earlier watermark, dead deliveries are looked for this far back. */
  deadLookbackMs: 3_600_000,
} as const;

/** Counting open deliveries stops here; mails then say "10000+". */
export const OPEN_COUNT_CAP = 10_000;
