// Prometheus text exposition format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/).

export type Labels = Record<string, string>;
export interface Sample {
  /** Appended to the family name: "_bucket", "_sum", "_count" for histograms. */
  suffix?: string;
  labels: Labels;
  value: number;
}
export interface MetricFamily {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  samples: Sample[];
}

export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const escapeLabel = (text: string) => text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const formatValue = (value: number) => (value === Infinity ? "+Inf" : value === -Infinity ? "-Inf" : String(value));

/** A histogram's samples: cumulative `_bucket`s (with `le`, ending at +Inf), `_sum`, `_count`. */
export function histogramSamples(labels: Labels, histogram: { buckets: { le: number; count: number }[]; sum: number; count: number }): Sample[] {
  return [
    ...histogram.buckets.map(({ le, count }) => ({ suffix: "_bucket", labels: { ...labels, le: formatValue(le) }, value: count })),
    { suffix: "_bucket", labels: { ...labels, le: "+Inf" }, value: histogram.count },
    { suffix: "_sum", labels, value: histogram.sum },
    { suffix: "_count", labels, value: histogram.count },
  ];
}

export function renderExposition(families: MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) {
      const labels = Object.entries(sample.labels).map(([name, value]) => `${name}="${escapeLabel(value)}"`).join(",");
      lines.push(`${family.name}${sample.suffix ?? ""}${labels ? `{${labels}}` : ""} ${formatValue(sample.value)}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
