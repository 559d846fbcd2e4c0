// The endpoint page's first lines (#47): is it healthy? Its success rate over the last 24 hours, how long the
// oldest pending delivery has waited, and its last error.
import { formatDuration } from "@/lib/alerts/format-duration";
import type { EndpointHealth } from "@/lib/endpoints/get-endpoint-health";

function Figure({ label, value, testId, tone = "plain", children }: { label: string; value: string; testId: string; tone?: "plain" | "bad" | "good"; children?: React.ReactNode }) {
  const color = tone === "bad" ? "text-red-700" : tone === "good" ? "text-emerald-700" : "text-slate-900";
  return (
    <div className="min-w-40">
      <div className="text-sm text-slate-600">{label}</div>
      <div data-testid={testId} className={`text-2xl font-bold tabular-nums ${color}`}>{value}</div>
      {children ? <div className="text-xs text-slate-600">{children}</div> : null}
    </div>
  );
}

export function EndpointHealthSummary({ health }: { health: EndpointHealth }) {
  const rate = health.successRate === null ? "—" : `${(Math.floor(health.successRate * 1000) / 10).toFixed(1)}%`;
  const { lastError } = health;
  return (
    <div className="flex flex-wrap gap-x-10 gap-y-4" data-testid="endpoint-health">
      <Figure label="Success rate (24 h)" value={rate} testId="health-success-rate" tone={health.successRate === null ? "plain" : health.successRate < 0.95 ? "bad" : "good"}>
        {health.successRate === null ? "nothing settled yet" : `${health.delivered.toLocaleString("en")} delivered, ${health.failed.toLocaleString("en")} failed`}
      </Figure>
      <Figure label="Oldest pending" value={health.pending === 0 ? "none" : formatDuration(health.oldestPendingAgeSeconds)} testId="health-oldest-pending">
        {health.pending === 0 ? "nothing waiting" : `${health.pending.toLocaleString("en")} waiting`}
      </Figure>
      <div className="min-w-0 flex-1">
        <div className="text-sm text-slate-600">Last error</div>
        {lastError ? (
          <>
            <p data-testid="health-last-error" className="mt-1 text-sm font-medium break-words text-red-800">{lastError.reason}</p>
            <p className="text-xs text-slate-600">
              {`to ${lastError.destinationName}; `}
              {lastError.failingSince ? `failing since ${lastError.failingSince.slice(0, 16).replace("T", " ")} UTC (${lastError.consecutiveFailures} in a row)` : "succeeded since"}
            </p>
          </>
        ) : (
          <p data-testid="health-last-error" className="mt-1 text-sm text-slate-700">None</p>
        )}
      </div>
    </div>
  );
}
