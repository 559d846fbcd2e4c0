// "Attempt 3 of 8 failed. Next: attempt 4 of 8, in about 16 s. Then, if it keeps failing: …": where
// a waiting delivery stands in its series of automatic attempts (lib/delivery/retry-plan.ts).
import { exactTime } from "@/components/ui/relative-time";
import { formatDuration } from "@/lib/alerts/format-duration";
import type { RetryPlan } from "@/lib/delivery/retry-plan";

function when(at: Date | null, paused: boolean, now: Date): string {
  if (paused) return "once the endpoint's deliveries resume";
  if (!at) return "at once";
  const seconds = Math.round((at.getTime() - now.getTime()) / 1000);
  return seconds > 0 ? `in about ${formatDuration(seconds)} (${exactTime(at.toISOString())})` : "any moment now";
}

export function RetryPlanView({ plan, now }: { plan: RetryPlan; now: Date }) {
  const { maxAttempts: max, last } = plan;
  const standing = plan.inFlight ? `Attempt ${last} of ${max} is in flight.` : last === 0 ? "No attempt yet in this series." : `Attempt ${last} of ${max} failed.`;
  return (
    <div data-testid="retry-plan" className="mb-4 space-y-1 rounded-md bg-slate-50 p-3 text-sm ring-1 ring-slate-200">
      <p>
        <span className="font-medium">{standing}</span>
        {plan.next ? ` Next: attempt ${plan.next.number} of ${max}, ${when(plan.next.at, plan.paused, now)}.` : null}
      </p>
      {plan.later.length > 0 ? (
        <div className="text-slate-700">
          Then, if it keeps failing:
          <ul className="ml-5 list-disc">
            {plan.later.map((attempt) => (
              <li key={attempt.number}>{`attempt ${attempt.number} about ${formatDuration(attempt.afterSeconds)} after the one before`}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <p className="text-xs text-slate-600">
        If attempt {max} fails too, the delivery goes dead (kept, and can be replayed). An answer of 410 or another 4xx (but 408 and 429)
        ends it at once; a Retry-After from the destination can make a wait longer; each wait varies by up to 20 %.
      </p>
    </div>
  );
}
