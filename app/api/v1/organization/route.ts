// GET/PATCH /api/v1/organization — the caller's own organization: name and retention
import { apiRoute } from "@/lib/http/api-route";
import { getOrganization } from "@/lib/organizations/get-organization";
import { updateOrganization } from "@/lib/organizations/update-organization";

export const GET = apiRoute(async ({ ctx }) => Response.json(await getOrganization({ ctx })));

export const PATCH = apiRoute(async ({ ctx, json }) => Response.json(await updateOrganization({ ctx, input: { changes: await json() } })));
