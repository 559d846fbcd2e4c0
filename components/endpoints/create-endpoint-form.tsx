"use client";

import Link from "next/link";
import { useActionState, useState } from "react";
import type { CreateEndpointState } from "@/app/(dashboard)/endpoints/actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyableValue } from "@/components/ui/copy-button";
import { Field, SelectField } from "@/components/ui/field";
import { PROVIDER_NAMES } from "@/lib/signatures/provider-names";
import { PROVIDERS, type Provider } from "@/lib/signatures/types";

type Action = (state: CreateEndpointState, form: FormData) => Promise<CreateEndpointState>;

const PROVIDER_OPTIONS = PROVIDERS.map((value) => ({ value, label: PROVIDER_NAMES[value] }));

export function CreateEndpointForm({ action }: { action: Action }) {
  const [state, formAction, pending] = useActionState(action, {});
  const [provider, setProvider] = useState<Provider>("standard-webhooks");
  // Kept in the browser only (the server never sends a secret back), so an error elsewhere does not lose it.
  const [secret, setSecret] = useState("");
  const typed = (name: string) => state.values?.[name];
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
      <SelectField label="Provider" name="provider" options={PROVIDER_OPTIONS} defaultValue={provider} onChange={(e) => setProvider(e.target.value as Provider)} />
      <Field label="Destination URL" name="destinationUrl" defaultValue={typed("destinationUrl")} type="url" required placeholder="https://api.example.com/webhooks" />
      <Field
        label="Signing secret"
        name="secret"
        type="password"
        autoComplete="off"
        disabled={provider === "none"}
        value={provider === "none" ? "" : secret}
        onChange={(e) => setSecret(e.target.value)}
        hint={provider === "standard-webhooks" || provider === "svix" ? "Leave empty to generate one." : `The secret ${PROVIDER_NAMES[provider]} shows you.`}
      />
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
