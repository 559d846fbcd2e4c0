// "3 min 5 s ago", with the exact UTC time in the tooltip and in <time datetime>. Server component:
// it renders against the server's clock, and pages that auto-refresh keep it current.
import { formatDuration } from "@/lib/alerts/format-duration";

export const exactTime = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;

export function RelativeTime({ iso, now = new Date() }: { iso: string; now?: Date }) {
  const seconds = Math.round((now.getTime() - Date.parse(iso)) / 1000);
  const text = seconds >= 0 ? `${formatDuration(seconds)} ago` : `in ${formatDuration(-seconds)}`;
  return (
    <time dateTime={iso} title={exactTime(iso)} className="whitespace-nowrap">
      {text}
    </time>
  );
}
