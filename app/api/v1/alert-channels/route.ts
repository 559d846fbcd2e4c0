// GET/POST /api/v1/alert-channels — list and add the organization's alert channels
import { createAlertChannel } from "@/lib/alerts/create-alert-channel";
import { listAlertChannels } from "@/lib/alerts/list-alert-channels";
import { apiRoute } from "@/lib/http/api-route";

export const GET = apiRoute(async ({ ctx, query }) =>
  Response.json(await listAlertChannels({ ctx, input: { limit: query.get("limit") ?? undefined, cursor: query.get("cursor") } })),
);

export const POST = apiRoute(async ({ ctx, json }) => Response.json(await createAlertChannel({ ctx, input: await json() }), { status: 201 }));
