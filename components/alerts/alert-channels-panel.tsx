"use client";
// Alert channels: the organization's list (a Slack URL or a routing key only masked), and for those who may
// change them, a form to add one (a webhook channel's secret shown once), Test and Delete per channel.
import { useActionState } from "react";
import type { ChannelFormState } from "@/app/(dashboard)/incidents/actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyableValue } from "@/components/ui/copy-button";
import { Field, SelectField } from "@/components/ui/field";
import type { AlertChannelView } from "@/lib/alerts/present-alert-channel";

type Action = (state: ChannelFormState, form: FormData) => Promise<ChannelFormState>;

const TYPES = [
  { value: "email", label: "Email: an address (an outside one confirms first)" },
  { value: "slack", label: "Slack: an incoming-webhook URL" },
  { value: "webhook", label: "Webhook: an HTTPS URL, events signed with Standard Webhooks" },
  { value: "pagerduty", label: "PagerDuty: an Events API v2 routing key" },
] as const;

export function AlertChannelsPanel({ channels, actions }: { channels: AlertChannelView[]; actions: { create: Action; remove: Action; test: Action } | null }) {
  const none: Action = async () => ({});
  const [created, createAction, creating] = useActionState(actions?.create ?? none, {});
  const [removed, removeAction, removing] = useActionState(actions?.remove ?? none, {});
  const [tested, testAction, testing] = useActionState(actions?.test ?? none, {});
  return (
    <div className="space-y-3">
      {[created.error, removed.error, tested.error].filter(Boolean).map((error) => <Alert key={error}>{error}</Alert>)}
      {created.secret ? (
        <div className="space-y-2">
          <Alert tone="success">Channel added. Its signing secret is shown this once: copy it to verify the events.</Alert>
          <CopyableValue value={created.secret} testId="new-channel-secret" />
        </div>
      ) : null}
      {tested.ok ? <Alert tone="success">Test notification queued; its fate shows below the incidents once sent.</Alert> : null}
      {channels.length === 0 ? (
        <p className="text-sm text-slate-600">No channels: incidents are mailed to each endpoint’s alert email, else the owners.</p>
      ) : (
        <ul className="divide-y divide-slate-200" aria-label="Alert channels">
          {channels.map((channel) => (
            <li key={channel.id} data-testid="alert-channel" className="flex flex-wrap items-center gap-3 py-2 text-sm">
              <span className="font-medium">{channel.name}</span>
              <span className="text-xs text-slate-500">{channel.type}</span>
              <code className="break-all font-mono text-xs text-slate-700">{channel.target}</code>
              {channel.awaitingConfirmation ? <span className="text-xs text-amber-800">awaiting confirmation (owners get its alerts meanwhile)</span> : null}
              <code className="font-mono text-xs text-slate-400">{channel.id}</code>
              {actions ? (
                <span className="ml-auto flex gap-2">
                  <form action={testAction}>
                    <input type="hidden" name="id" value={channel.id} />
                    <Button type="submit" variant="secondary" disabled={testing} aria-label={`Test ${channel.name}`}>Test</Button>
                  </form>
                  <form action={removeAction}>
                    <input type="hidden" name="id" value={channel.id} />
                    <Button type="submit" variant="danger" disabled={removing} aria-label={`Delete ${channel.name}`}>Delete</Button>
                  </form>
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {actions ? (
        <form action={createAction} aria-label="New alert channel" className="grid gap-3 sm:grid-cols-3">
          <Field label="Name" name="name" required maxLength={200} defaultValue={created.values?.name} />
          <SelectField label="Type" name="type" options={TYPES} defaultValue={created.values?.type ?? "slack"} />
          <Field label="Target" name="target" required maxLength={2000} defaultValue={created.values?.target} />
          <div className="sm:col-span-3"><Button type="submit" disabled={creating}>Add channel</Button></div>
        </form>
      ) : null}
      <p className="text-xs text-slate-500">Endpoints and destinations name channels by id (<code className="font-mono">alertChannelIds</code> in the REST API).</p>
    </div>
  );
}
