/**
 * The dashboard's organization form → the changes PATCH /api/v1/organization takes. Retention typed as
 * anything but digits (or left empty) goes through as text, so the API's own message refuses it.
 */
export function organizationChangesFromForm(form: FormData): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  const name = form.get("name");
  if (typeof name === "string") changes.name = name;
  const retention = form.get("retentionDays");
  if (typeof retention === "string") changes.retentionDays = /^\s*\d{1,6}\s*$/.test(retention) ? Number(retention) : retention;
  return changes;
}
