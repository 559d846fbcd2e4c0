"use client";
// Invitations not yet accepted; an owner may withdraw one, after which its link says so.

import { useActionState } from "react";
import type { FormState } from "@/lib/auth/form-action";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CellLabel, stacked } from "@/components/ui/cell-label";

export interface InvitationRow {
  id: string;
  email: string;
  role: string;
  expiresAt: string;
}

type Action = (state: FormState, form: FormData) => Promise<FormState>;

export function PendingInvitations({ invitations, withdrawAction }: { invitations: InvitationRow[]; withdrawAction: Action }) {
  const [state, formAction, pending] = useActionState(withdrawAction, {});
  if (invitations.length === 0) return <p className="text-sm text-slate-600">No pending invitations.</p>;
  return (
    <div className="space-y-3">
      {state.error ? <Alert>{state.error}</Alert> : null}
      <table className={stacked.table}>
        <caption className="sr-only">Pending invitations</caption>
        <thead className={stacked.head}>
          <tr>
            <th scope="col" className="py-2 pr-3 font-medium">Email</th>
            <th scope="col" className="pr-3 font-medium">Role</th>
            <th scope="col" className="pr-3 font-medium">Expires</th>
            <th scope="col"><span className="sr-only">Actions</span></th>
          </tr>
        </thead>
        <tbody className={stacked.body}>
          {invitations.map((invitation) => (
            <tr key={invitation.id} data-testid="invitation" className={stacked.row}>
              <td className={`${stacked.cell} py-2 pr-3 font-medium break-words max-md:order-1 max-md:col-span-2`}>{invitation.email}</td>
              <td className={`${stacked.cell} py-2 pr-3 capitalize max-md:order-2`}>{invitation.role}</td>
              <td className={`${stacked.cell} py-2 pr-3 text-xs max-md:order-3 max-md:col-span-2`}>
                <CellLabel>Expires</CellLabel>
                <time dateTime={invitation.expiresAt} className="whitespace-nowrap">{`${invitation.expiresAt.slice(0, 16).replace("T", " ")} UTC`}</time>
              </td>
              <td className={`${stacked.cell} py-2 text-right max-md:order-4 max-md:col-span-2 max-md:text-left`}>
                <form action={formAction}>
                  <input type="hidden" name="id" value={invitation.id} />
                  <Button type="submit" variant="secondary" disabled={pending} aria-label={`Withdraw the invitation of ${invitation.email}`}>Withdraw</Button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
