// Every attempt at a delivery, first to last: to which destination, who triggered it, when, how long, what came back.
import { RelativeTime, exactTime } from "@/components/ui/relative-time";
import type { DeliveryDetail } from "@/lib/delivery/presentation/present-delivery";

type Attempt = DeliveryDetail["attempts"][number];

function outcome(attempt: Attempt): { text: string; className: string } {
  if (attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300) return { text: `HTTP ${attempt.statusCode}`, className: "bg-emerald-500" };
  if (attempt.statusCode !== null) return { text: `HTTP ${attempt.statusCode}`, className: "bg-red-500" };
  if (attempt.durationMs === null && !attempt.error) return { text: "in flight", className: "bg-sky-500" };
  return { text: "no answer", className: "bg-red-500" };
}

function HeaderList({ headers, label }: { headers: Record<string, string>; label: string }) {
  return (
    <pre tabIndex={0} aria-label={label} className="mt-1 max-h-48 overflow-auto rounded bg-slate-100 p-2 whitespace-pre-wrap break-all">
      {Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join("\n")}
    </pre>
  );
}

/** `destinationNames`: by destination id; an attempt's destination not in it shows its id. */
export function AttemptsTimeline({ attempts, destinationNames, now }: { attempts: Attempt[]; destinationNames: ReadonlyMap<string, string>; now: Date }) {
  if (attempts.length === 0) return <p className="text-sm text-slate-600">No attempt yet.</p>;
  return (
    <ol aria-label="Attempts" className="relative space-y-4 border-l border-slate-200 pl-5">
      {attempts.map((attempt) => {
        const result = outcome(attempt);
        return (
          // Numbered per destination: the number alone is not unique.
          <li key={`${attempt.destinationId}:${attempt.number}`} data-testid="attempt" data-destination-id={attempt.destinationId} className="relative">
            <span className={`absolute top-1.5 -left-[25px] size-2.5 rounded-full ring-2 ring-white ${result.className}`} aria-hidden="true" />
            <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1 text-sm">
              <span className="font-semibold">Attempt {attempt.number}</span>
              <span className="break-all text-slate-700" data-testid="attempt-destination">to {destinationNames.get(attempt.destinationId) ?? attempt.destinationId}</span>
              <span className={`rounded px-1.5 py-0.5 text-xs ring-1 ring-inset ${attempt.trigger === "replay" ? "bg-indigo-50 text-indigo-800 ring-indigo-200" : "bg-slate-50 text-slate-700 ring-slate-200"}`}>
                {attempt.trigger === "replay" ? "replay" : "automatic"}
              </span>
              <span className="font-medium" data-testid="attempt-outcome">{result.text}</span>
              <span className="text-xs text-slate-500">
                <RelativeTime iso={attempt.startedAt} now={now} /> · {exactTime(attempt.startedAt)}
                {attempt.durationMs !== null ? ` · ${attempt.durationMs} ms` : ""}
              </span>
            </div>
            {attempt.error ? <p className="mt-1 text-sm break-words text-red-800">Error: {attempt.error}</p> : null}
            {attempt.requestHeaders ? (
              <details className="mt-1 text-xs" data-testid="attempt-request">
                <summary className="cursor-pointer text-slate-600">Request sent</summary>
                <p className="mt-1 text-slate-600">POST with the request&apos;s own headers and body (above), and these the worker set:</p>
                <HeaderList headers={attempt.requestHeaders} label={`Request headers of attempt ${attempt.number}`} />
              </details>
            ) : null}
            {attempt.responseHeaders ? (
              <details className="mt-1 text-xs" data-testid="attempt-response-headers">
                <summary className="cursor-pointer text-slate-600">Response headers</summary>
                <HeaderList headers={attempt.responseHeaders} label={`Response headers of attempt ${attempt.number}`} />
              </details>
            ) : null}
            {attempt.responseBody ? (
              <details className="mt-1 text-xs">
                <summary className="cursor-pointer text-slate-600">Response body (first 4 KiB)</summary>
                <pre tabIndex={0} aria-label={`Response body of attempt ${attempt.number}`} className="mt-1 max-h-48 overflow-auto rounded bg-slate-100 p-2 whitespace-pre-wrap break-all">{attempt.responseBody}</pre>
              </details>
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}
