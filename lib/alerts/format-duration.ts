/** 45 s · 12 min 5 s · 2 h 3 min · 3 d 4 h — two units at most, for mail and the dashboard. */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const units: [string, number][] = [["d", 86_400], ["h", 3_600], ["min", 60], ["s", 1]];
  const parts: string[] = [];
  let rest = seconds;
  for (const [label, size] of units) {
    const value = Math.floor(rest / size);
    rest -= value * size;
    if (value > 0 || (parts.length > 0 && parts.length < 2)) parts.push(`${value} ${label}`);
    if (parts.length === 2) break;
  }
  const shown = parts.filter((part, index) => index === 0 || !part.startsWith("0 "));
  return shown.length ? shown.join(" ") : "0 s";
}
