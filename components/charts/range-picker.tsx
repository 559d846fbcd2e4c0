// The charts' range, as links (?range=…): the page reads its series for it on the server.
import Link from "next/link";
import { TRAFFIC_RANGES, type TrafficRange } from "@/lib/endpoints/get-traffic-series";

const NAMES: Record<TrafficRange, string> = { "1h": "1 h", "24h": "24 h", "7d": "7 d", "30d": "30 d" };

export function RangePicker({ current, hrefFor }: { current: TrafficRange; hrefFor: (range: TrafficRange) => string }) {
  return (
    <nav aria-label="Chart range" className="flex gap-1 text-sm">
      {TRAFFIC_RANGES.map((range) => (
        <Link
          key={range}
          prefetch={false}
          href={hrefFor(range)}
          scroll={false}
          aria-current={range === current ? "page" : undefined}
          className={`rounded px-2 py-0.5 ring-1 ring-inset ${range === current ? "bg-indigo-600 text-white ring-indigo-600" : "text-slate-700 ring-slate-300 hover:bg-slate-50"}`}
        >
          {NAMES[range]}
        </Link>
      ))}
    </nav>
  );
}

/** The range a page's search params ask for; 24 hours when none or another. */
export function rangeOf(value: string | string[] | undefined): TrafficRange {
  return (TRAFFIC_RANGES as readonly string[]).includes(String(value)) ? (value as TrafficRange) : "24h";
}
