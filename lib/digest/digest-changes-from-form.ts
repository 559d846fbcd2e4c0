/**
 * The dashboard's digest form → the `{digest}` change PATCH /api/v1/organization takes: no hour is off; recipients
 * typed one per line or comma-separated, none meaning the owners. An hour typed as anything but digits goes through
 * as text, so the API's own message refuses it.
 */
export function digestChangesFromForm(form: FormData): { digest: unknown } {
  const hour = form.get("hourUtc");
  if (typeof hour !== "string" || hour.trim() === "") return { digest: null };
  const recipients = String(form.get("recipients") ?? "")
    .split(/[\s,;]+/)
    .filter(Boolean);
  return { digest: { hourUtc: /^\s*\d{1,2}\s*$/.test(hour) ? Number(hour) : hour, ...(recipients.length ? { recipients } : {}) } };
}
