// POST /api/v1/alert-channels/:id/test — send a test notification on one channel (202; recorded like an incident's)
import { testAlertChannel } from "@/lib/alerts/test-alert-channel";
import { apiRoute } from "@/lib/http/api-route";

export const POST = apiRoute<{ id: string }>(
  async ({ ctx, params }) => Response.json(await testAlertChannel({ ctx, input: params }), { status: 202 }),
  { id: { prefix: "ach", what: "Alert channel" } },
);
