"use client";
// The organization's members. An owner may change a member's role and remove a member (after
// confirming); everyone else sees the list read-only. A refused change says why in its row and keeps
// the role that was chosen.

import { useActionState, useState } from "react";
import type { FormState } from "@/lib/auth/form-action";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CellLabel, stacked } from "@/components/ui/cell-label";
import { ROLE_OPTIONS } from "./role-options";

export interface MemberRow {
  userId: string;
  email: string;
  role: string;
  joinedAt: string;
}

type Action = (state: FormState, form: FormData) => Promise<FormState>;

const Utc = ({ iso }: { iso: string }) => <time dateTime={iso} className="whitespace-nowrap">{`${iso.slice(0, 16).replace("T", " ")} UTC`}</time>;
const select = "rounded-md border-0 px-2 py-1 text-sm ring-1 ring-slate-300 focus:ring-2 focus:ring-indigo-600";

function MemberItem({ member, you, canManage, changeRoleAction, removeAction }: { member: MemberRow; you: boolean; canManage: boolean; changeRoleAction: Action; removeAction: Action }) {
  const [changed, changeFormAction, changing] = useActionState(changeRoleAction, {});
  const [removed, removeFormAction, removing] = useActionState(removeAction, {});
  const [asking, setAsking] = useState(false);
  const chosenRole = changed.values?.role ?? member.role;
  return (
    <tr data-testid="member" className={stacked.row}>
      <td className={`${stacked.cell} py-2 pr-3 font-medium break-words max-md:order-1 max-md:col-span-2`}>
        {member.email}
        {you ? <span className="ml-1.5 text-xs font-normal text-slate-500">(you)</span> : null}
        {changed.error ? <div className="mt-1"><Alert>{changed.error}</Alert></div> : null}
        {removed.error ? <div className="mt-1"><Alert>{removed.error}</Alert></div> : null}
      </td>
      <td className={`${stacked.cell} py-2 pr-3 max-md:order-2 max-md:col-span-2`} data-testid="member-role">
        {canManage ? (
          <form action={changeFormAction} className="flex items-center gap-2">
            <input type="hidden" name="userId" value={member.userId} />
            <select name="role" defaultValue={chosenRole} key={chosenRole} aria-label={`Role of ${member.email}`} className={select}>
              {ROLE_OPTIONS.map((option) => <option key={option.value} value={option.value}>{option.label}</option>)}
            </select>
            <Button type="submit" variant="secondary" disabled={changing} aria-label={`Save role of ${member.email}`}>Save</Button>
            {changed.ok && !changing ? <span role="status" className="text-xs text-emerald-700">Saved</span> : null}
          </form>
        ) : (
          <span className="capitalize">{member.role}</span>
        )}
      </td>
      <td className={`${stacked.cell} py-2 pr-3 text-xs max-md:order-3 max-md:col-span-2`}><CellLabel>Joined</CellLabel><Utc iso={member.joinedAt} /></td>
      {canManage ? (
        <td className={`${stacked.cell} py-2 text-right max-md:order-4 max-md:col-span-2 max-md:text-left`}>
          {asking ? (
            <form action={removeFormAction} className="flex flex-wrap items-center justify-end gap-2 max-md:justify-start">
              <input type="hidden" name="userId" value={member.userId} />
              <span className="text-xs text-red-800">Remove {member.email}? They lose access to this organization at once.</span>
              <Button type="submit" variant="danger" disabled={removing} aria-label={`Yes, remove ${member.email}`}>Yes, remove</Button>
              <Button type="button" variant="secondary" onClick={() => setAsking(false)} autoFocus>Cancel</Button>
            </form>
          ) : (
            <Button type="button" variant="secondary" onClick={() => setAsking(true)} aria-label={`Remove ${member.email}`}>Remove</Button>
          )}
        </td>
      ) : null}
    </tr>
  );
}

export function MembersTable(props: { members: MemberRow[]; currentUserId: string; canManage: boolean; changeRoleAction: Action; removeAction: Action }) {
  const { members, currentUserId, canManage } = props;
  return (
    <table className={stacked.table}>
      <caption className="sr-only">Members of this organization</caption>
      <thead className={stacked.head}>
        <tr>
          <th scope="col" className="py-2 pr-3 font-medium">Email</th>
          <th scope="col" className="pr-3 font-medium">Role</th>
          <th scope="col" className="pr-3 font-medium">Joined</th>
          {canManage ? <th scope="col"><span className="sr-only">Actions</span></th> : null}
        </tr>
      </thead>
      <tbody className={stacked.body}>
        {members.map((member) => (
          <MemberItem key={member.userId} member={member} you={member.userId === currentUserId} canManage={canManage} changeRoleAction={props.changeRoleAction} removeAction={props.removeAction} />
        ))}
      </tbody>
    </table>
  );
}
