import { AlertChannelsPanel } from "@/components/alerts/alert-channels-panel";
import { IncidentHistory } from "@/components/alerts/incident-history";
import { Card } from "@/components/ui/card";
import { can } from "@/lib/access/roles";
import { listAlertChannels } from "@/lib/alerts/list-alert-channels";
import { listIncidents } from "@/lib/alerts/list-incidents";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { MAX_PAGE_SIZE } from "@/lib/pagination";
import { createAlertChannelAction, deleteAlertChannelAction, testAlertChannelAction } from "./actions";

export const metadata = { title: "Incidents · Webhook Inbox" };

// Open and recent incidents with their notifications (whether each channel was told), and the channels.
export default async function IncidentsPage() {
  const ctx = await requireDashboardCtx();
  const channels = await listAlertChannels({ ctx, input: { limit: MAX_PAGE_SIZE } });
  const bound = (action: typeof createAlertChannelAction) => action.bind(null, ctx.organizationId);
  return (
    <>
      <h1 className="text-lg font-semibold">Incidents</h1>
      <IncidentHistory incidents={await listIncidents({ ctx })} />
      <Card title="Alert channels">
        <AlertChannelsPanel
          channels={channels.data}
          actions={can(ctx.actor, "change") ? { create: bound(createAlertChannelAction), remove: bound(deleteAlertChannelAction), test: bound(testAlertChannelAction) } : null}
        />
      </Card>
    </>
  );
}
