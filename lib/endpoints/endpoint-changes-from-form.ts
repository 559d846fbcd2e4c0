/**
 * The dashboard's endpoint settings form → the changes the REST API's PATCH takes. Only fields the
 * form carries are changed; an empty alert threshold or alert email turns that setting off (null).
 * The outbound signing secret is write-only: a value sets it, an empty field keeps the one stored,
 * and `stopOutboundSigning` removes it.
 */
export function endpointChangesFromForm(form: FormData): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value.trim() : undefined;
  };
  for (const name of ["name", "destinationUrl"]) {
    const value = text(name);
    if (value !== undefined) changes[name] = value;
  }
  for (const name of ["maxAttempts", "retryBaseSeconds", "timeoutMs", "maxBodyBytes", "toleranceSeconds"]) {
    const value = text(name);
    if (value) changes[name] = Number(value);
  }
  const threshold = text("alertPendingAgeSeconds");
  if (threshold !== undefined) changes.alertPendingAgeSeconds = threshold === "" ? null : Number(threshold);
  const email = text("alertEmail");
  if (email !== undefined) changes.alertEmail = email === "" ? null : email;
  const outboundSecret = text("outboundSecret");
  if (outboundSecret) changes.outboundSecret = outboundSecret;
  else if (form.get("stopOutboundSigning") === "on") changes.outboundSecret = null;
  return changes;
}
