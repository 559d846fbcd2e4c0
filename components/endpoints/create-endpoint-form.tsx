"use client";

import Link from "next/link";
import { useActionState, useState } from "react";
import type { CreateEndpointState } from "@/app/(dashboard)/endpoints/actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyableValue } from "@/components/ui/copy-button";
import { Field, SelectField } from "@/components/ui/field";
import type { Provider, ProviderGuide } from "@/lib/signatures";

type Action = (state: CreateEndpointState, form: FormData) => Promise<CreateEndpointState>;

/** `providers`: each provider's name and what to paste where, from its file in lib/signatures. */
export function CreateEndpointForm({ action, providers }: { action: Action; providers: ProviderGuide[] }) {
  const [state, formAction, pending] = useActionState(action, {});
  const [provider, setProvider] = useState<Provider>("standard-webhooks");
  // Kept in the browser only (the server never sends a secret back), so an error elsewhere does not lose it.
  const [secret, setSecret] = useState("");
  const typed = (name: string) => state.values?.[name];
  const guide = providers.find((candidate) => candidate.id === provider) ?? providers[0]!;
  if (state.ok && state.id) {
    return (
      <div className="space-y-4">
        <Alert tone="success">Endpoint created. Point your provider at its ingest URL.</Alert>
        <div>
          <div className="text-sm font-medium text-slate-700">Ingest URL</div>
          <CopyableValue value={state.ingestUrl!} testId="ingest-url" />
        </div>
        {state.secret ? (
          <div>
            <div className="text-sm font-medium text-slate-700">Signing secret — shown once, copy it now</div>
            <CopyableValue value={state.secret} testId="endpoint-secret" />
          </div>
        ) : null}
        <Link href={`/endpoints/${state.id}`} className="text-sm text-indigo-700 underline">Open the endpoint</Link>
      </div>
    );
  }
  // React resets a form after its action, putting every select back to the option it was mounted
  // with: each answer remounts the form, so its defaults are what was submitted.
  return (
    <form key={JSON.stringify([state.values, state.error])} action={formAction} className="grid gap-4 sm:grid-cols-2">
      {state.error ? <div className="sm:col-span-2"><Alert>{state.error}</Alert></div> : null}
      <Field label="Name" name="name" defaultValue={typed("name")} required placeholder="Stripe payments" />
      <SelectField label="Provider" name="provider" options={providers.map(({ id, displayName }) => ({ value: id, label: displayName }))} defaultValue={provider} onChange={(e) => setProvider(e.target.value as Provider)} />
      <Field label="Destination URL" name="destinationUrl" defaultValue={typed("destinationUrl")} type="url" required placeholder="https://api.example.com/webhooks" />
      <Field
        label={guide.secretLabel}
        name="secret"
        type="password"
        autoComplete="off"
        disabled={provider === "none"}
        value={provider === "none" ? "" : secret}
        onChange={(e) => setSecret(e.target.value)}
        hint={guide.setupHint}
      />
      {guide.verifyTokenHint ? (
        <Field label="Verify token" name="verifyToken" defaultValue={typed("verifyToken")} autoComplete="off" hint={guide.verifyTokenHint} />
      ) : null}
      {provider === "generic-hmac" ? (
        <>
          <Field label="Signature header" name="hmacHeader" defaultValue={typed("hmacHeader")} placeholder="x-signature" required />
          <SelectField label="Algorithm" name="hmacAlgorithm" defaultValue={typed("hmacAlgorithm")} options={["sha256", "sha1"]} />
          <SelectField label="Encoding" name="hmacEncoding" defaultValue={typed("hmacEncoding")} options={["hex", "base64"]} />
          <Field label="Signature prefix" name="hmacPrefix" defaultValue={typed("hmacPrefix")} placeholder="sha256=" />
          <Field label="Event id header" name="hmacIdHeader" defaultValue={typed("hmacIdHeader")} placeholder="x-event-id" />
        </>
      ) : null}
      {provider === "none" ? <div className="sm:col-span-2"><Alert tone="warning">Unsafe: anyone who knows the URL can send to this endpoint.</Alert></div> : null}
      <div className="sm:col-span-2">
        <Button type="submit" disabled={pending}>Create endpoint</Button>
      </div>
    </form>
  );
}
