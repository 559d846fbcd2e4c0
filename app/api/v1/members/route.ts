// GET /api/v1/members — who is in the caller's organization, with their roles
import { apiRoute } from "@/lib/http/api-route";
import { listMembers } from "@/lib/members/list-members";

export const GET = apiRoute(async ({ ctx }) => Response.json({ data: await listMembers({ ctx }), nextCursor: null }));
