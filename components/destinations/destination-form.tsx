"use client";

// Adding a destination to an endpoint, or editing one: name, URL, filter (with its preview), paused, retries and
// timeout. What is shown is saved (lib/destinations/destination-form.ts reads it).
import { useActionState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import type { FormState } from "@/lib/auth/form-action";
import type { DestinationView } from "@/lib/destinations/present-destination";
import { FilterEditor, type PreviewAction } from "./filter-editor";
import { filterText } from "./filter-summary";

export type DestinationFormAction = (state: FormState, form: FormData) => Promise<FormState>;

// A new destination's fields as the REST API would default them (lib/destinations/destination-input.ts).
const NEW = { name: "", url: "", filter: "", maxAttempts: "8", retryBaseSeconds: "5", timeoutMs: "15000", autoPauseFailures: "", autoPauseMinutes: "", paused: false };

export function DestinationForm({ action, previewAction, endpointId, destination, onCancel }: {
  action: DestinationFormAction;
  previewAction: PreviewAction;
  endpointId: string;
  /** The one edited; none: a new one. */
  destination?: DestinationView;
  onCancel: () => void;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  const initial = destination
    ? { name: destination.name, url: destination.url ?? "", filter: filterText(destination.filter), maxAttempts: String(destination.maxAttempts), retryBaseSeconds: String(destination.retryBaseSeconds), timeoutMs: String(destination.timeoutMs),
        autoPauseFailures: destination.autoPause ? String(destination.autoPause.consecutiveFailures) : "", autoPauseMinutes: destination.autoPause ? String(destination.autoPause.minutes) : "", paused: destination.paused }
    : NEW;
  // A refused form comes back as typed; a saved one shows what was saved (the page's new props) or, for a new one, is empty again.
  const value = (name: Exclude<keyof typeof NEW, "paused">) => state.values?.[name] ?? initial[name];
  const label = destination ? `Edit destination ${destination.name}` : "New destination";
  return (
    <form action={formAction} aria-label={label} className="grid gap-4 rounded-md bg-slate-50 p-4 ring-1 ring-slate-200 sm:grid-cols-2">
      <input type="hidden" name="endpointId" value={endpointId} />
      {destination ? <input type="hidden" name="id" value={destination.id} /> : null}
      {state.error ? <div className="sm:col-span-2"><Alert>{state.error}</Alert></div> : null}
      {state.ok ? <div className="sm:col-span-2"><Alert tone="success">{destination ? "Destination saved." : "Destination added. Add another, or close this form."}</Alert></div> : null}
      <Field label="Destination name" name="name" defaultValue={value("name")} required maxLength={200} />
      {destination?.type === "pull" ? null : <Field label="URL" name="url" type="url" defaultValue={value("url")} required placeholder="https://example.com/webhooks" />}
      <FilterEditor defaultValue={value("filter")} previewAction={previewAction} shownFor={state} />
      <Field label="Max attempts" name="maxAttempts" type="number" min={1} max={50} defaultValue={value("maxAttempts")} hint="Automatic attempts before a delivery goes dead." />
      <Field label="Retry base (seconds)" name="retryBaseSeconds" type="number" min={1} max={3600} defaultValue={value("retryBaseSeconds")} hint="The n-th retry waits about base × 4^(n−1), capped at 1 hour." />
      <Field label="Timeout (ms)" name="timeoutMs" type="number" min={100} max={30000} defaultValue={value("timeoutMs")} hint="How long one attempt may take, 100–30000." />
      <Field label="Pause after failures in a row" name="autoPauseFailures" type="number" min={1} max={10000} defaultValue={value("autoPauseFailures")} hint="Empty: never paused automatically." />
      <Field label="…failing for at least (minutes)" name="autoPauseMinutes" type="number" min={0} max={10080} defaultValue={value("autoPauseMinutes")} hint="0 or empty: the count alone decides." />
      <label className="flex items-center gap-2 self-end text-sm text-slate-700">
        <input type="checkbox" name="paused" defaultChecked={state.values ? state.values.paused === "on" : initial.paused} />
        Paused: store its deliveries, send nothing until resumed
      </label>
      <p className="text-xs text-slate-500 sm:col-span-2">This form sets no rate limit, ordering key or pull type, and keeps the ones a destination has: those go through the REST API, for what this release supports.</p>
      <div className="flex gap-2 sm:col-span-2">
        <Button type="submit" disabled={pending}>{pending ? "Saving…" : destination ? "Save destination" : "Add destination"}</Button>
        <Button type="button" variant="secondary" onClick={onCancel}>{state.ok ? "Close" : "Cancel"}</Button>
      </div>
    </form>
  );
}
