import { InviteMemberForm } from "@/components/members/invite-member-form";
import { MembersTable } from "@/components/members/members-table";
import { PendingInvitations } from "@/components/members/pending-invitations";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { can } from "@/lib/access/roles";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { listInvitations } from "@/lib/invitations/list-invitations";
import { smtpUrl } from "@/lib/mail/mail-settings";
import { listMembers } from "@/lib/members/list-members";
import { changeMemberRoleAction, inviteMemberAction, removeMemberAction, withdrawInvitationAction } from "./actions";

export const metadata = { title: "Members · Webhook Inbox" };

// Everyone sees who is in the organization; owners (manage_members) also change roles, remove members,
// invite and withdraw invitations.
export default async function MembersPage() {
  const ctx = await requireDashboardCtx();
  const canManage = can(ctx.actor, "manage_members");
  const [members, invitations] = await Promise.all([listMembers({ ctx }), canManage ? listInvitations({ ctx }) : Promise.resolve([])]);
  return (
    <>
      <h1 className="text-lg font-semibold">Members</h1>
      <Card title="Members">
        {canManage ? null : <p className="mb-4 text-sm text-slate-600">Only owners can invite, change roles or remove members.</p>}
        <MembersTable members={members} currentUserId={ctx.actor.userId} canManage={canManage} changeRoleAction={changeMemberRoleAction.bind(null, ctx.organizationId)} removeAction={removeMemberAction.bind(null, ctx.organizationId)} />
      </Card>
      {canManage ? (
        <>
          <Card title="Invite someone">
            <p className="mb-4 text-sm text-slate-600">They get a mail with a link that works for 7 days: it signs them up or in, then joins them with the role chosen here. The link goes to them alone: no page shows it, the Mailbox included.</p>
            {smtpUrl() ? null : (
              <div className="mb-4">
                <Alert tone="warning">SMTP_URL is not set, so no mail leaves this server and an invitation cannot reach anyone. Set SMTP_URL before inviting.</Alert>
              </div>
            )}
            <InviteMemberForm action={inviteMemberAction.bind(null, ctx.organizationId)} />
          </Card>
          <Card title="Pending invitations">
            <PendingInvitations invitations={invitations} withdrawAction={withdrawInvitationAction.bind(null, ctx.organizationId)} />
          </Card>
        </>
      ) : null}
    </>
  );
}
