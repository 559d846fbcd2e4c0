"use client";
// API keys: create one with a role (shown once), list them with who made them, revoke after confirming.
// The "copy it now" banner shows the new key only while it is active and until a key is revoked: never a
// key that no longer works. A viewer sees the list only; the owner role is offered to owners only.

import { useActionState, useState } from "react";
import type { CreateApiKeyState, RevokeApiKeyState } from "@/app/(dashboard)/api-keys/actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CellLabel, stacked } from "@/components/ui/cell-label";
import { CopyableValue } from "@/components/ui/copy-button";
import { Field, SelectField } from "@/components/ui/field";
import type { Role } from "@/lib/access/roles";

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  /** The member who created it; null: the CLI made it. */
  createdByEmail: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

type Action<S> = (state: S, form: FormData) => Promise<S>;

const Utc = ({ iso }: { iso: string }) => <time dateTime={iso} className="whitespace-nowrap">{`${iso.slice(0, 16).replace("T", " ")} UTC`}</time>;

const ROLE_OPTIONS = [
  { value: "admin", label: "admin: everything but members and deleting the organization" },
  { value: "viewer", label: "viewer: read only" },
  { value: "owner", label: "owner: everything" },
] as const;

interface Props {
  keys: ApiKeyRow[];
  createAction: Action<CreateApiKeyState>;
  revokeAction: Action<RevokeApiKeyState>;
  /** The roles the signed-in member may give a key, and so revoke; none: they may not create or revoke keys (a viewer). */
  grantableRoles: readonly Role[];
}

export function ApiKeysPanel({ keys, createAction, revokeAction, grantableRoles }: Props) {
  const canChange = grantableRoles.length > 0;
  const [created, createFormAction, creating] = useActionState(createAction, {});
  const [revoked, revokeFormAction, revoking] = useActionState(revokeAction, {});
  const [asking, setAsking] = useState<string | null>(null);
  const [dismissed, setDismissed] = useState<CreateApiKeyState | null>(null);
  const createdIsActive = keys.some((key) => key.id === created.id && key.revokedAt === null);
  const banner = created.apiKey && createdIsActive && created !== dismissed ? created.apiKey : null;
  return (
    <div className="space-y-3">
      {created.error ? <Alert>{created.error}</Alert> : null}
      {revoked.error ? <Alert>{revoked.error}</Alert> : null}
      {banner ? (
        <div className="space-y-2">
          <Alert tone="success">Key created. Copy it now: it will not be shown again.</Alert>
          <CopyableValue value={banner} testId="new-api-key" />
        </div>
      ) : null}
      {canChange ? (
        <form action={createFormAction} className="flex flex-wrap items-end gap-3">
          <div className="min-w-48 flex-1"><Field label="Key name" name="name" placeholder="CI deploys" defaultValue={created.values?.name} /></div>
          <div className="min-w-48">
            <SelectField label="Role" name="role" defaultValue={created.values?.role ?? "admin"} options={ROLE_OPTIONS.filter((option) => grantableRoles.includes(option.value))} />
          </div>
          <Button type="submit" disabled={creating}>Create key</Button>
        </form>
      ) : null}
      {keys.length === 0 ? (
        <p className="mt-6 rounded-md border border-dashed border-slate-300 p-4 text-sm text-slate-600" data-testid="api-keys-empty">
          No API keys yet.{canChange ? " Create one above to call the REST API from a script or CI." : " An owner or admin can create one."}
        </p>
      ) : (
      <table className={`${stacked.table} mt-6`}>
        <caption className="sr-only">API keys, active first</caption>
        <thead className={stacked.head}>
          <tr>
            <th scope="col" className="py-2 pr-3 font-medium">Name</th>
            <th scope="col" className="pr-3 font-medium">Key</th>
            <th scope="col" className="pr-3 font-medium">Role</th>
            <th scope="col" className="pr-3 font-medium">Status</th>
            <th scope="col" className="pr-3 font-medium">Created</th>
            <th scope="col" className="pr-3 font-medium">Created by</th>
            <th scope="col" className="pr-3 font-medium">Last used</th>
            <th scope="col"><span className="sr-only">Actions</span></th>
          </tr>
        </thead>
        <tbody className={stacked.body}>
          {keys.map((key) => (
            <tr key={key.id} data-testid="api-key" className={`${stacked.row} ${key.revokedAt ? "text-slate-600" : ""}`}>
              <td className={`${stacked.cell} py-2 pr-3 font-medium break-words max-md:order-1`}>{key.name}</td>
              <td className={`${stacked.cell} py-2 pr-3 max-md:order-3 max-md:col-span-2`}><code className="font-mono text-xs">{key.prefix}…</code></td>
              <td className={`${stacked.cell} py-2 pr-3 text-xs max-md:order-3 max-md:col-span-2`} data-testid="key-role"><CellLabel>Role</CellLabel>{key.role}</td>
              <td className={`${stacked.cell} py-2 pr-3 max-md:order-2 max-md:text-right`} data-testid="key-status">
                {key.revokedAt ? (
                  <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs font-medium text-slate-700 ring-1 ring-slate-300 ring-inset">Revoked <Utc iso={key.revokedAt} /></span>
                ) : (
                  <span className="rounded bg-emerald-50 px-1.5 py-0.5 text-xs font-medium text-emerald-900 ring-1 ring-emerald-300 ring-inset">Active</span>
                )}
              </td>
              <td className={`${stacked.cell} py-2 pr-3 text-xs max-md:order-4 max-md:col-span-2`}><CellLabel>Created</CellLabel><Utc iso={key.createdAt} /></td>
              <td className={`${stacked.cell} py-2 pr-3 text-xs break-all max-md:order-4 max-md:col-span-2`} data-testid="key-created-by"><CellLabel>Created by</CellLabel>{key.createdByEmail ?? "CLI"}</td>
              <td className={`${stacked.cell} py-2 pr-3 text-xs max-md:order-5 max-md:col-span-2`}><CellLabel>Last used</CellLabel>{key.lastUsedAt ? <Utc iso={key.lastUsedAt} /> : "never"}</td>
              <td className={`${stacked.cell} py-2 text-right max-md:order-6 max-md:col-span-2 max-md:text-left`}>
                {key.revokedAt || !canChange ? null : !grantableRoles.includes(key.role) ? (
                  // Revoking takes the right to create a key of its role (an admin and an owner key).
                  <span className="text-xs text-slate-600" data-testid="key-revoke-owner-only">Only an owner may revoke it</span>
                ) : asking === key.id && !(revoked.ok && revoked.revokedId === key.id) ? (
                  <form action={revokeFormAction} onSubmit={() => setDismissed(created)} className="flex flex-wrap items-center justify-end gap-2 max-md:justify-start">
                    <input type="hidden" name="id" value={key.id} />
                    <span className="text-xs text-red-800">Revoke “{key.name}”? Anything using it is refused from then on.</span>
                    <Button type="submit" variant="danger" disabled={revoking} aria-label={`Yes, revoke ${key.name}`}>Yes, revoke</Button>
                    <Button type="button" variant="secondary" onClick={() => setAsking(null)} autoFocus>Cancel</Button>
                  </form>
                ) : (
                  <Button type="button" variant="secondary" onClick={() => setAsking(key.id)} aria-label={`Revoke ${key.name}`}>Revoke</Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      )}
    </div>
  );
}
