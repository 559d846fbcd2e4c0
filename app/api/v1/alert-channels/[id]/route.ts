// GET/PATCH/DELETE /api/v1/alert-channels/:id — read, change, delete one alert channel
import { deleteAlertChannel } from "@/lib/alerts/delete-alert-channel";
import { getAlertChannelRowOrThrow } from "@/lib/alerts/get-alert-channel-or-throw";
import { alertEmailStatus } from "@/lib/alerts/alert-email-status";
import { presentAlertChannel } from "@/lib/alerts/present-alert-channel";
import { updateAlertChannel } from "@/lib/alerts/update-alert-channel";
import { apiRoute } from "@/lib/http/api-route";

type Params = { id: string };
const ids = { id: { prefix: "ach", what: "Alert channel" } } as const;

export const GET = apiRoute<Params>(async ({ ctx, params }) => {
  const row = await getAlertChannelRowOrThrow({ ctx, input: params });
  return Response.json(presentAlertChannel(row, row.type === "email" ? await alertEmailStatus({ ctx, input: { email: row.target } }) : null));
}, ids);

export const PATCH = apiRoute<Params>(async ({ ctx, params, json }) => Response.json(await updateAlertChannel({ ctx, input: { id: params.id, changes: await json() } })), ids);

export const DELETE = apiRoute<Params>(async ({ ctx, params }) => {
  await deleteAlertChannel({ ctx, input: params });
  return new Response(null, { status: 204 });
}, ids);
