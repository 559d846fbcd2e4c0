// Received vs delivered vs failed over the last 24 h, one bar per hour, as inline SVG.
// Each bar is the hour's received deliveries; inside it, from the bottom, those delivered (green)
// and those that failed (red); grey is what still waits for a first attempt.
import type { HourBucket } from "@/lib/endpoints/get-overview";

const BAR = 6;
const GAP = 2;
const HEIGHT = 40;

export function HourlyChart({ hours, label }: { hours: HourBucket[]; label: string }) {
  const max = Math.max(1, ...hours.map((h) => h.received));
  const totals = hours.reduce((t, h) => ({ received: t.received + h.received, delivered: t.delivered + h.delivered, failed: t.failed + h.failed }), { received: 0, delivered: 0, failed: 0 });
  const width = hours.length * (BAR + GAP);
  const scale = (n: number) => (n === 0 ? 0 : Math.max(1, Math.round((n / max) * HEIGHT)));
  const summary = `${label}, last 24 hours: ${totals.received} received, ${totals.delivered} delivered, ${totals.failed} failed`;
  return (
    <figure className="space-y-1">
      <svg role="img" aria-label={summary} width={width} height={HEIGHT} viewBox={`0 0 ${width} ${HEIGHT}`} className="block overflow-visible">
        <line x1={0} y1={HEIGHT - 0.5} x2={width} y2={HEIGHT - 0.5} className="stroke-slate-200" />
        {hours.map((hour, i) => {
          const x = i * (BAR + GAP);
          const received = scale(hour.received);
          const delivered = scale(hour.delivered);
          const failed = Math.min(received - delivered, scale(hour.failed));
          const when = hour.hoursAgo === 0 ? "last hour" : `${hour.hoursAgo}–${hour.hoursAgo + 1} h ago`;
          return (
            <g key={hour.hoursAgo}>
              <title>{`${when}: ${hour.received} received, ${hour.delivered} delivered, ${hour.failed} failed`}</title>
              <rect x={x} y={HEIGHT - Math.max(received, 1)} width={BAR} height={Math.max(received, 1)} className={received ? "fill-slate-300" : "fill-slate-100"} />
              {delivered ? <rect x={x} y={HEIGHT - delivered} width={BAR} height={delivered} className="fill-emerald-500" /> : null}
              {failed > 0 ? <rect x={x} y={HEIGHT - delivered - failed} width={BAR} height={failed} className="fill-red-500" /> : null}
            </g>
          );
        })}
      </svg>
      <figcaption className="flex gap-3 text-[11px] text-slate-500" aria-hidden="true">
        <span><span className="mr-1 inline-block size-2 bg-slate-300" />received</span>
        <span><span className="mr-1 inline-block size-2 bg-emerald-500" />delivered</span>
        <span><span className="mr-1 inline-block size-2 bg-red-500" />failed</span>
      </figcaption>
    </figure>
  );
}
