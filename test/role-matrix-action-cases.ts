// The dashboard role matrix's table (lib/access/role-matrix-actions.int.test.ts): every server action, the permission
// it needs (null: any signed-in member) and how to call it as each role. A new action is one line here.
import type { Permission, Role } from "@/lib/access/roles";
import { createAlertChannel } from "@/lib/alerts/create-alert-channel";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { inviteMember } from "@/lib/invitations/invite-member";
import { formOf, memberWithSession } from "@/test/dashboard-session";
import { createOrganizationFixture } from "@/test/fixtures";
import { delivery, destination, endpoint, newEmail, world } from "@/test/role-matrix";

const action = async <M,>(load: () => Promise<M>) => load();

export interface ActionCase {
  /** "<file under app/(dashboard)>#<export>". */
  action: string;
  /** null: any signed-in member may (their own account, their own organizations). */
  permission: Permission | null;
  /** Calls the action for `role`; returns the organization whose state a refusal must leave alone. */
  call: (role: Role) => Promise<{ run: () => Promise<unknown>; organizationId: string; sessionId: string }>;
}

const inWorld = (role: Role, run: () => Promise<unknown>) => ({ run, organizationId: world().organizationId, sessionId: world().sessions[role] });

export const ACTIONS: ActionCase[] = [
  {
    action: "incidents/actions.ts#createAlertChannelAction", permission: "change",
    call: async (role) => {
      const { createAlertChannelAction } = await action(() => import("@/app/(dashboard)/incidents/actions"));
      return inWorld(role, () => createAlertChannelAction(world().organizationId, {}, formOf({ name: "Made", type: "webhook", target: "http://127.0.0.1:9/made" })));
    },
  },
  {
    action: "incidents/actions.ts#deleteAlertChannelAction", permission: "change",
    call: async (role) => {
      const { deleteAlertChannelAction } = await action(() => import("@/app/(dashboard)/incidents/actions"));
      const { id } = await createAlertChannel({ ctx: world().ctx, input: { name: "To delete", type: "webhook", target: "http://127.0.0.1:9/d" } });
      return inWorld(role, () => deleteAlertChannelAction(world().organizationId, {}, formOf({ id })));
    },
  },
  {
    action: "incidents/actions.ts#testAlertChannelAction", permission: "change",
    call: async (role) => {
      const { testAlertChannelAction } = await action(() => import("@/app/(dashboard)/incidents/actions"));
      const { id } = await createAlertChannel({ ctx: world().ctx, input: { name: "To test", type: "webhook", target: "http://127.0.0.1:9/t" } });
      return inWorld(role, () => testAlertChannelAction(world().organizationId, {}, formOf({ id })));
    },
  },
  {
    action: "api-keys/actions.ts#createApiKeyAction", permission: "change",
    call: async (role) => {
      const { createApiKeyAction } = await action(() => import("@/app/(dashboard)/api-keys/actions"));
      return inWorld(role, () => createApiKeyAction(world().organizationId, {}, formOf({ name: "made", role: "viewer" })));
    },
  },
  {
    action: "api-keys/actions.ts#revokeApiKeyAction", permission: "change",
    call: async (role) => {
      const { revokeApiKeyAction } = await action(() => import("@/app/(dashboard)/api-keys/actions"));
      const { id } = await createApiKey({ ctx: world().ctx, input: { name: "to revoke" } });
      return inWorld(role, () => revokeApiKeyAction(world().organizationId, {}, formOf({ id })));
    },
  },
  {
    action: "deliveries/actions.ts#bulkDeliveriesAction", permission: "change",
    call: async (role) => {
      const { bulkDeliveriesAction } = await action(() => import("@/app/(dashboard)/deliveries/actions"));
      const { endpointId } = await delivery("dead");
      return inWorld(role, () => bulkDeliveriesAction(world().organizationId, {}, formOf({ intent: "replay:confirm", endpointId })));
    },
  },
  {
    action: "deliveries/[id]/actions.ts#deliveryAction", permission: "change",
    call: async (role) => {
      const { deliveryAction } = await action(() => import("@/app/(dashboard)/deliveries/[id]/actions"));
      const { id } = await delivery("pending");
      return inWorld(role, () => deliveryAction(world().organizationId, {}, formOf({ id, intent: "bury" })));
    },
  },
  {
    action: "endpoints/actions.ts#createEndpointAction", permission: "change",
    call: async (role) => {
      const { createEndpointAction } = await action(() => import("@/app/(dashboard)/endpoints/actions"));
      return inWorld(role, () => createEndpointAction(world().organizationId, {}, formOf({ name: "Made", provider: "none", destinationUrl: "http://127.0.0.1:9/hook" })));
    },
  },
  {
    action: "endpoints/[id]/actions.ts#updateEndpointAction", permission: "change",
    call: async (role) => {
      const { updateEndpointAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/actions"));
      const { id } = await endpoint();
      return inWorld(role, () => updateEndpointAction(world().organizationId, {}, formOf({ id, name: "Renamed", maxAttempts: "3" })));
    },
  },
  {
    action: "endpoints/[id]/actions.ts#setPausedAction", permission: "change",
    call: async (role) => {
      const { setPausedAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/actions"));
      const { id } = await endpoint();
      return inWorld(role, () => setPausedAction(world().organizationId, formOf({ id, paused: "true" })));
    },
  },
  {
    action: "endpoints/[id]/actions.ts#deleteEndpointAction", permission: "change",
    call: async (role) => {
      const { deleteEndpointAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/actions"));
      const { id, name } = await endpoint();
      return inWorld(role, () => deleteEndpointAction(world().organizationId, {}, formOf({ id, confirmName: name })));
    },
  },
  {
    action: "endpoints/[id]/quarantine-actions.ts#reverifyQuarantineAction", permission: "change",
    call: async (role) => {
      const { reverifyQuarantineAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/quarantine-actions"));
      const { id } = await endpoint();
      return inWorld(role, () => reverifyQuarantineAction(world().organizationId, {}, formOf({ id, intent: "confirm" })));
    },
  },
  {
    action: "endpoints/[id]/test-event-actions.ts#sendTestEventAction", permission: "change",
    call: async (role) => {
      const { sendTestEventAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/test-event-actions"));
      const { id } = await endpoint();
      return inWorld(role, () => sendTestEventAction(world().organizationId, {}, formOf({ id })));
    },
  },
  {
    action: "endpoints/[id]/secret-actions.ts#rotateSecretAction", permission: "change",
    call: async (role) => {
      const { rotateSecretAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/secret-actions"));
      const { id } = await endpoint();
      return inWorld(role, () => rotateSecretAction(world().organizationId, {}, formOf({ id })));
    },
  },
  {
    action: "endpoints/[id]/destination-actions.ts#createDestinationAction", permission: "change",
    call: async (role) => {
      const { createDestinationAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/destination-actions"));
      const { id } = await endpoint("none");
      return inWorld(role, () => createDestinationAction(world().organizationId, {}, formOf({ endpointId: id, name: "made", url: "http://127.0.0.1:9/made", filter: "" })));
    },
  },
  {
    action: "endpoints/[id]/destination-actions.ts#updateDestinationAction", permission: "change",
    call: async (role) => {
      const { updateDestinationAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/destination-actions"));
      const { endpointId, id } = await destination();
      const form = formOf({ endpointId, id, name: "renamed", url: "http://127.0.0.1:9/renamed", filter: '{"body": {"type": "a"}}', maxAttempts: "3", paused: "on" });
      return inWorld(role, () => updateDestinationAction(world().organizationId, {}, form));
    },
  },
  {
    action: "endpoints/[id]/destination-actions.ts#deleteDestinationAction", permission: "change",
    call: async (role) => {
      const { deleteDestinationAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/destination-actions"));
      const { endpointId, id } = await destination();
      return inWorld(role, () => deleteDestinationAction(world().organizationId, {}, formOf({ endpointId, id, intent: "confirm" })));
    },
  },
  {
    // Changes nothing: any member may see which stored requests a filter would match.
    action: "endpoints/[id]/filter-preview-actions.ts#previewFilterAction", permission: "read",
    call: async (role) => {
      const { previewFilterAction } = await action(() => import("@/app/(dashboard)/endpoints/[id]/filter-preview-actions"));
      const { endpointId } = await delivery("pending");
      return inWorld(role, () => previewFilterAction(world().organizationId, formOf({ endpointId, filter: '{"body": {"type": "a"}}' })));
    },
  },
  {
    action: "settings/actions.ts#updateOrganizationAction", permission: "change",
    call: async (role) => {
      const { updateOrganizationAction } = await action(() => import("@/app/(dashboard)/settings/actions"));
      return inWorld(role, () => updateOrganizationAction(world().organizationId, {}, formOf({ name: "Matrix", retentionDays: "11" })));
    },
  },
  {
    action: "settings/actions.ts#updateDigestAction", permission: "change",
    call: async (role) => {
      const { updateDigestAction } = await action(() => import("@/app/(dashboard)/settings/actions"));
      return inWorld(role, () => updateDigestAction(world().organizationId, {}, formOf({ hourUtc: role === "viewer" ? "3" : "9", recipients: "" })));
    },
  },
  {
    // Each call deletes an organization of its own, with the three roles as members.
    action: "settings/actions.ts#deleteOrganizationAction", permission: "delete_organization",
    call: async (role) => {
      const { deleteOrganizationAction } = await action(() => import("@/app/(dashboard)/settings/actions"));
      const doomed = await createOrganizationFixture("Doomed");
      const member = role === "owner" ? { sessionId: await (await import("@/lib/sessions/start-session")).startSession({ userId: doomed.userId, organizationId: doomed.organizationId }) } : await memberWithSession(doomed.organizationId, role);
      return { run: () => deleteOrganizationAction(doomed.organizationId, {}, formOf({ confirmName: "Doomed" })), organizationId: doomed.organizationId, sessionId: member.sessionId };
    },
  },
  {
    // Anyone's own account: a member of each role changes their own password (their own user, made for the call).
    action: "account/actions.ts#changePasswordAction", permission: null,
    call: async (role) => {
      const { changePasswordAction } = await action(() => import("@/app/(dashboard)/account/actions"));
      const member = await memberWithSession(world().organizationId, role);
      return { run: () => changePasswordAction({}, formOf({ currentPassword: "a-long-test-password", newPassword: "another-long-password" })), organizationId: world().organizationId, sessionId: member.sessionId };
    },
  },
  {
    action: "organizations/actions.ts#createOrganizationAction", permission: null,
    call: async (role) => {
      const { createOrganizationAction } = await action(() => import("@/app/(dashboard)/organizations/actions"));
      const member = await memberWithSession(world().organizationId, role);
      return { run: () => createOrganizationAction({}, formOf({ name: `${role}'s second` })), organizationId: world().organizationId, sessionId: member.sessionId };
    },
  },
  {
    action: "organizations/actions.ts#switchOrganizationAction", permission: null,
    call: async (role) => {
      const { switchOrganizationAction } = await action(() => import("@/app/(dashboard)/organizations/actions"));
      const member = await memberWithSession(world().organizationId, role);
      return { run: () => switchOrganizationAction(formOf({ organizationId: member.ownOrganizationId })), organizationId: world().organizationId, sessionId: member.sessionId };
    },
  },
  {
    action: "members/actions.ts#inviteMemberAction", permission: "manage_members",
    call: async (role) => {
      const { inviteMemberAction } = await action(() => import("@/app/(dashboard)/members/actions"));
      return inWorld(role, () => inviteMemberAction(world().organizationId, {}, formOf({ email: newEmail(), role: "viewer" })));
    },
  },
  {
    action: "members/actions.ts#withdrawInvitationAction", permission: "manage_members",
    call: async (role) => {
      const { withdrawInvitationAction } = await action(() => import("@/app/(dashboard)/members/actions"));
      const { id } = await inviteMember({ ctx: world().ctx, input: { email: newEmail(), role: "viewer" } });
      return inWorld(role, () => withdrawInvitationAction(world().organizationId, {}, formOf({ id })));
    },
  },
  {
    action: "members/actions.ts#changeMemberRoleAction", permission: "manage_members",
    call: async (role) => {
      const { changeMemberRoleAction } = await action(() => import("@/app/(dashboard)/members/actions"));
      const { userId } = await memberWithSession(world().organizationId, "viewer");
      return inWorld(role, () => changeMemberRoleAction(world().organizationId, {}, formOf({ userId, role: "admin" })));
    },
  },
  {
    action: "members/actions.ts#removeMemberAction", permission: "manage_members",
    call: async (role) => {
      const { removeMemberAction } = await action(() => import("@/app/(dashboard)/members/actions"));
      const { userId } = await memberWithSession(world().organizationId, "viewer");
      return inWorld(role, () => removeMemberAction(world().organizationId, {}, formOf({ userId })));
    },
  },
];
