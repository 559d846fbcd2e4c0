// POST/GET /api/v1/invitations — invite someone by email with a role (a mail carries the link); list pending ones
import { apiRoute } from "@/lib/http/api-route";
import { inviteMember } from "@/lib/invitations/invite-member";
import { listInvitations } from "@/lib/invitations/list-invitations";

const MANAGE = { permission: "manage_members" } as const;

export const POST = apiRoute(async ({ ctx, json }) => Response.json(await inviteMember({ ctx, input: await json() }), { status: 201 }), {}, MANAGE);

export const GET = apiRoute(async ({ ctx }) => Response.json({ data: await listInvitations({ ctx }), nextCursor: null }), {}, MANAGE);
