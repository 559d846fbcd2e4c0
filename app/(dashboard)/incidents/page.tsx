import { IncidentHistory } from "@/components/alerts/incident-history";
import { listIncidents } from "@/lib/alerts/list-incidents";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";

export const metadata = { title: "Incidents · Webhook Inbox" };

// Open and recent incidents with their notifications: whether each channel was told. Read only.
export default async function IncidentsPage() {
  const ctx = await requireDashboardCtx();
  return (
    <>
      <h1 className="text-lg font-semibold">Incidents</h1>
      <IncidentHistory incidents={await listIncidents({ ctx })} />
    </>
  );
}
