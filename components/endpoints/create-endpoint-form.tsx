"use client";

import Link from "next/link";
import { useActionState, useState } from "react";
import type { CreateEndpointState } from "@/app/(dashboard)/endpoints/actions";
import type { RotateSecretState } from "@/app/(dashboard)/endpoints/[id]/secret-actions";
import { RotateSecretForm } from "@/components/endpoints/rotate-secret-form";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyableValue } from "@/components/ui/copy-button";
import { Field, SelectField } from "@/components/ui/field";
import type { Provider, ProviderGuide } from "@/lib/signatures";

type Action = (state: CreateEndpointState, form: FormData) => Promise<CreateEndpointState>;
type SetSecretAction = (state: RotateSecretState, form: FormData) => Promise<RotateSecretState>;

/**
 * `providers`: each provider's name and what to paste where, from its file in lib/signatures; `generating`: those
 * whose secret we generate. For a provider that issues its own (Stripe, GitHub…) the secret may come after the
 * endpoint: create it, register its ingest URL there, then paste the secret the provider shows (`setSecretAction`).
 */
export function CreateEndpointForm({ action, setSecretAction, providers, generating }: { action: Action; setSecretAction: SetSecretAction; providers: ProviderGuide[]; generating: string[] }) {
  const [state, formAction, pending] = useActionState(action, {});
  const [provider, setProvider] = useState<Provider>("standard-webhooks");
  // Kept in the browser only (the server never sends a secret back), so an error elsewhere does not lose it.
  const [secret, setSecret] = useState("");
  const typed = (name: string) => state.values?.[name];
  const guide = providers.find((candidate) => candidate.id === provider) ?? providers[0]!;
  const issuesOwnSecret = provider !== "none" && !generating.includes(provider);
  if (state.ok && state.id) {
    const submitted = guide; // the provider chosen, still selected
    return (
      <div className="space-y-4">
        <Alert tone="success">
          {state.awaitingSecret
            ? `Endpoint created, awaiting its signing secret. Next: add the ingest URL below at ${submitted.displayName}, then paste the signing secret ${submitted.displayName} shows for it.`
            : "Endpoint created. Point your provider at its ingest URL."}
        </Alert>
        <div>
          <div className="text-sm font-medium text-slate-700">{state.awaitingSecret ? `2. Copy the ingest URL into ${submitted.displayName}` : "Ingest URL"}</div>
          <CopyableValue value={state.ingestUrl!} testId="ingest-url" />
        </div>
        {state.awaitingSecret ? (
          <div>
            <div className="mb-1 text-sm font-medium text-slate-700">{`3. Paste the ${submitted.secretLabel.toLowerCase()} from ${submitted.displayName}`}</div>
            <p className="mb-2 text-xs text-slate-600">{submitted.setupHint} Until it is set, what arrives is refused and kept in the quarantine; setting it delivers what it signed.</p>
            <RotateSecretForm action={setSecretAction} endpointId={state.id} generates={false} providerName={submitted.displayName} awaiting />
          </div>
        ) : null}
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
        hint={issuesOwnSecret
          ? `Optional now. In order: 1. create the endpoint; 2. copy its ingest URL into ${guide.displayName}; 3. paste the secret ${guide.displayName} then shows (here, or on the next screen). ${guide.setupHint}`
          : guide.setupHint}
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
