// The last 24 h, one bar per hour, as inline SVG. Each bar is the hour's received deliveries; inside
// it, from the bottom, those delivered by now (green), dead (red), and waiting again after a failed
// attempt (amber); grey is the rest still waiting (not attempted yet, in flight, or replayed).
import type { HourBucket } from "@/lib/endpoints/get-overview";

const BAR = 6;
const GAP = 2;
const HEIGHT = 40;

export function HourlyChart({ hours, label }: { hours: HourBucket[]; label: string }) {
  const max = Math.max(1, ...hours.map((h) => h.received));
  const sum = (key: "received" | "delivered" | "dead" | "retrying") => hours.reduce((total, hour) => total + hour[key], 0);
  const width = hours.length * (BAR + GAP);
  const scale = (n: number) => (n === 0 ? 0 : Math.max(1, Math.round((n / max) * HEIGHT)));
  const describe = (counts: Omit<HourBucket, "hoursAgo">) => `${counts.received} received, ${counts.delivered} delivered, ${counts.dead} dead, ${counts.retrying} retrying`;
  const summary = `${label}, last 24 hours: ${describe({ received: sum("received"), delivered: sum("delivered"), dead: sum("dead"), retrying: sum("retrying") })}`;
  return (
    <figure className="space-y-1">
      <svg role="img" aria-label={summary} width={width} height={HEIGHT} viewBox={`0 0 ${width} ${HEIGHT}`} className="block overflow-visible">
        <line x1={0} y1={HEIGHT - 0.5} x2={width} y2={HEIGHT - 0.5} className="stroke-slate-200" />
        {hours.map((hour, i) => {
          const x = i * (BAR + GAP);
          const received = scale(hour.received);
          const delivered = Math.min(received, scale(hour.delivered));
          const dead = Math.min(received - delivered, scale(hour.dead));
          const retrying = Math.min(received - delivered - dead, scale(hour.retrying));
          const when = hour.hoursAgo === 0 ? "last hour" : `${hour.hoursAgo}–${hour.hoursAgo + 1} h ago`;
          return (
            <g key={hour.hoursAgo}>
              <title>{`${when}: ${describe(hour)}`}</title>
              <rect x={x} y={HEIGHT - Math.max(received, 1)} width={BAR} height={Math.max(received, 1)} className={received ? "fill-slate-300" : "fill-slate-100"} />
              {delivered ? <rect x={x} y={HEIGHT - delivered} width={BAR} height={delivered} className="fill-emerald-500" /> : null}
              {dead > 0 ? <rect x={x} y={HEIGHT - delivered - dead} width={BAR} height={dead} className="fill-red-500" /> : null}
              {retrying > 0 ? <rect x={x} y={HEIGHT - delivered - dead - retrying} width={BAR} height={retrying} className="fill-amber-400" /> : null}
            </g>
          );
        })}
      </svg>
      <figcaption className="flex flex-wrap gap-x-3 text-[11px] text-slate-600" aria-hidden="true">
        <span><span className="mr-1 inline-block size-2 bg-emerald-500" />delivered</span>
        <span><span className="mr-1 inline-block size-2 bg-red-500" />dead</span>
        <span><span className="mr-1 inline-block size-2 bg-amber-400" />retrying</span>
        <span><span className="mr-1 inline-block size-2 bg-slate-300" />waiting</span>
      </figcaption>
    </figure>
  );
}
