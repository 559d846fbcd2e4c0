// The weekly delivery partitions as tests name and fill them (lib/storage/delivery-partitions.ts).
import { timeOrderedIdFloor } from "@/lib/ids";

const WEEK_MS = 7 * 86_400_000;

/** The Monday (UTC) of the week `weeks` after this one, as partitions are named: YYYYMMDD. */
export function monday(weeks: number): string {
  const now = new Date();
  const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - ((now.getUTCDay() + 6) % 7)) + weeks * WEEK_MS);
  return at.toISOString().slice(0, 10).replaceAll("-", "");
}

/** Noon of that week's Monday, plus `days`. */
export const inWeekAt = (weeks: number, days = 0) =>
  new Date(Date.parse(`${monday(weeks).replace(/(\d{4})(\d{2})(\d{2})/, "$1-$2-$3")}T12:00:00Z`) + days * 86_400_000);

/** A delivery id of that week (Monday noon), ending in `n` so that several differ. */
export const idInWeek = (weeks: number, n = 0) => timeOrderedIdFloor("dlv", inWeekAt(weeks).getTime()) + String(n).padStart(15, "0");
