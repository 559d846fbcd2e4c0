"use client";

import { useActionState, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import type { FormState } from "@/lib/auth/form-action";
import type { EndpointView } from "@/lib/endpoints/present-endpoint";

type Action = (state: FormState, form: FormData) => Promise<FormState>;

/** Destination, delivery and alert settings of one endpoint (PATCH semantics: what is shown is saved). */
const ALERT_EMAIL_HINTS = {
  none: "Empty: the organization's owners. An address outside the organization is sent a confirmation link first.",
  member: "A member's address: alerts go here.",
  confirmed: "Confirmed: alerts go here.",
  unconfirmed: "Awaiting confirmation: a link was mailed to this address. Until it is confirmed, alerts go to the owners.",
} as const;

export function EndpointSettingsForm({
  action,
  endpoint,
  alertEmailStatus,
  readOnly = false,
}: {
  action: Action;
  endpoint: EndpointView;
  alertEmailStatus: keyof typeof ALERT_EMAIL_HINTS;
  /** A viewer's: the settings shown, nothing to edit or save. */
  readOnly?: boolean;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  const value = (name: keyof EndpointView) => state.values?.[name] ?? String(endpoint[name] ?? "");
  // Write-only: never sent to the browser; what is typed stays here (not in the server's answer)
  // until it is saved, so an error elsewhere in the form does not lose it.
  const [outbound, setOutbound] = useState({ secret: "", stop: false });
  const [savedWith, setSavedWith] = useState<FormState | null>(null);
  if (state.ok && savedWith !== state) {
    setSavedWith(state);
    setOutbound({ secret: "", stop: false });
  }
  return (
    <form action={formAction} aria-label="Endpoint settings" className="grid gap-4 sm:grid-cols-2">
      <input type="hidden" name="id" value={endpoint.id} />
      <fieldset disabled={readOnly} className="contents">
        {state.error ? <div className="sm:col-span-2"><Alert>{state.error}</Alert></div> : null}
        {state.ok ? <div className="sm:col-span-2"><Alert tone="success">Settings saved.</Alert></div> : null}
        <Field label="Name" name="name" defaultValue={value("name")} required />
        <Field label="Destination URL" name="destinationUrl" type="url" defaultValue={value("destinationUrl")} required />
        <Field label="Timeout (ms)" name="timeoutMs" type="number" min={100} max={30000} defaultValue={value("timeoutMs")} hint="How long one attempt may take, 100–30000." />
        <Field label="Max attempts" name="maxAttempts" type="number" min={1} max={50} defaultValue={value("maxAttempts")} hint="Automatic attempts before a delivery goes dead." />
        <Field label="Retry base (seconds)" name="retryBaseSeconds" type="number" min={1} max={3600} defaultValue={value("retryBaseSeconds")} hint="The n-th retry waits about base × 4^(n−1), capped at 1 hour." />
        <Field label="Max body size (bytes)" name="maxBodyBytes" type="number" min={1} max={26214400} defaultValue={value("maxBodyBytes")} hint="Larger requests are refused with 413." />
        <Field label="Signature tolerance (seconds)" name="toleranceSeconds" type="number" min={1} max={86400} defaultValue={value("toleranceSeconds")} hint="How far a signed timestamp may be from our clock." />
        <Field label="Alert when oldest pending is older than (seconds)" name="alertPendingAgeSeconds" type="number" min={1} defaultValue={value("alertPendingAgeSeconds")} hint="Empty: no alert." />
        <Field label="Alert email" name="alertEmail" type="email" defaultValue={value("alertEmail")} hint={ALERT_EMAIL_HINTS[alertEmailStatus]} />
        <div className="space-y-2 sm:col-span-2">
          <p className="text-sm text-slate-700" data-testid="outbound-signing">
            {endpoint.signsOutbound ? "Outbound requests are signed (Standard Webhooks)." : "Outbound requests are not signed."}
          </p>
          {readOnly ? null : (
            <Field
              label="Outbound signing secret"
              name="outboundSecret"
              type="password"
              autoComplete="off"
              value={outbound.secret}
              onChange={(event) => setOutbound({ ...outbound, secret: event.target.value })}
              placeholder="whsec_…"
              hint={`${endpoint.signsOutbound ? "Type a new one to replace it; empty keeps the one set. " : ""}With it, requests to the destination carry webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks), so it can check they come from here. Never shown again once saved.`}
            />
          )}
          {endpoint.signsOutbound && !readOnly ? (
            <label className="flex items-center gap-2 text-sm text-slate-700">
              <input type="checkbox" name="stopOutboundSigning" checked={outbound.stop} onChange={(event) => setOutbound({ ...outbound, stop: event.target.checked })} />
              Stop signing outbound requests
            </label>
          ) : null}
        </div>
      </fieldset>
      {readOnly ? null : (
        <div className="sm:col-span-2">
          <Button type="submit" disabled={pending}>{pending ? "Saving…" : "Save settings"}</Button>
        </div>
      )}
    </form>
  );
}
