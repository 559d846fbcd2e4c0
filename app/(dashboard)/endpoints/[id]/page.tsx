import Link from "next/link";
import { notFound } from "next/navigation";
import { RangePicker, rangeOf } from "@/components/charts/range-picker";
import { TrafficChart } from "@/components/charts/traffic-chart";
import { DestinationList } from "@/components/destinations/destination-list";
import { ProviderLabel } from "@/components/endpoints/provider-label";
import { SendTestEventForm } from "@/components/endpoints/send-test-event-form";
import { DeleteEndpointForm } from "@/components/endpoints/delete-endpoint-form";
import { EndpointHealthSummary } from "@/components/endpoints/endpoint-health";
import { EndpointSettingsForm } from "@/components/endpoints/endpoint-settings-form";
import { QuarantineTable } from "@/components/endpoints/quarantine-table";
import { RejectedRequestsTable } from "@/components/endpoints/rejected-requests-table";
import { ReverifyQuarantineForm } from "@/components/endpoints/reverify-quarantine-form";
import { RotateSecretForm } from "@/components/endpoints/rotate-secret-form";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyableValue } from "@/components/ui/copy-button";
import { alertEmailStatus } from "@/lib/alerts/alert-email-status";
import type { Ctx } from "@/lib/context";
import { getDestinationStats } from "@/lib/destinations/get-destination-stats";
import { listDestinations } from "@/lib/destinations/list-destinations";
import type { DestinationView } from "@/lib/destinations/present-destination";
import { can } from "@/lib/access/roles";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { GENERATES_SECRET } from "@/lib/endpoints/endpoint-input";
import { getEndpoint } from "@/lib/endpoints/get-endpoint";
import { getEndpointHealth } from "@/lib/endpoints/get-endpoint-health";
import { getTrafficSeries } from "@/lib/endpoints/get-traffic-series";
import { listRejectedRequests } from "@/lib/endpoints/list-rejected-requests";
import { NotFoundError } from "@/lib/errors";
import { isId } from "@/lib/ids";
import { listQuarantinedRequests } from "@/lib/quarantine/list-quarantined-requests";
import { quarantineSummary } from "@/lib/quarantine/quarantine-summary";
import { providerName } from "@/lib/signatures/provider-names";
import { deleteEndpointAction, setPausedAction, updateEndpointAction } from "./actions";
import { createDestinationAction, deleteDestinationAction, updateDestinationAction } from "./destination-actions";
import { previewFilterAction } from "./filter-preview-actions";
import { reverifyQuarantineAction } from "./quarantine-actions";
import { rotateSecretAction } from "./secret-actions";
import { sendTestEventAction } from "./test-event-actions";

/** Titled by the endpoint's name (a primary-key read; a tab per endpoint tells them apart). */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const ctx = await requireDashboardCtx();
  const endpoint = isId("ep", id) ? await getEndpoint({ ctx, input: { id } }).catch(() => null) : null;
  return { title: `${endpoint ? endpoint.name : "Endpoint"} · Webhook Inbox` };
}

const utc = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

/** Every destination of the endpoint: a page holds ENDPOINT_MAX_DESTINATIONS at its default, but the limit is configurable. */
async function allDestinations(ctx: Ctx, endpointId: string): Promise<DestinationView[]> {
  const all: DestinationView[] = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof listDestinations>> = await listDestinations({ ctx, input: { endpointId, limit: 200, cursor } });
    all.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

// One endpoint: its health and traffic first, then where its webhooks come in and go, how they are retried and
// alerted on, and what was refused.
export default async function EndpointPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const ctx = await requireDashboardCtx();
  const { id } = await params;
  const range = rangeOf((await searchParams).range);
  if (!isId("ep", id)) notFound(); // not one of our ids: no query with it
  const endpoint = await getEndpoint({ ctx, input: { id } }).catch((error) => {
    if (error instanceof NotFoundError) notFound();
    throw error;
  });
  const [health, traffic] = await Promise.all([
    getEndpointHealth({ ctx, input: { id: endpoint.id } }),
    getTrafficSeries({ ctx, input: { range, endpointId: endpoint.id } }),
  ]);
  const destinations = await allDestinations(ctx, endpoint.id);
  const destinationStats = Object.fromEntries(await Promise.all(destinations.map(async (destination) =>
    [destination.id, await getDestinationStats({ ctx, input: { endpointId: endpoint.id, id: destination.id } })] as const)));
  const rejections = await listRejectedRequests({ ctx, input: { endpointId: endpoint.id, limit: 50 } });
  const quarantine = endpoint.provider === "none" ? null : await listQuarantinedRequests({ ctx, input: { endpointId: endpoint.id, limit: 50 } });
  const quarantined = quarantine ? await quarantineSummary({ ctx, input: { endpointId: endpoint.id } }) : null;
  const alertEmail = endpoint.alertEmail ? await alertEmailStatus({ ctx, input: { email: endpoint.alertEmail } }) : "none";
  const canChange = can(ctx.actor, "change"); // a viewer sees the settings, and no control that changes them
  const previousValid = endpoint.previousSecretValidUntil && Date.parse(endpoint.previousSecretValidUntil) > Date.now() ? endpoint.previousSecretValidUntil : null;
  return (
    <>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-lg font-semibold">{endpoint.name}</h1>
        <span data-testid="endpoint-state" className={`rounded px-1.5 py-0.5 text-xs ring-1 ring-inset ${endpoint.paused ? "bg-amber-50 text-amber-900 ring-amber-300" : "bg-emerald-50 text-emerald-900 ring-emerald-300"}`}>
          {endpoint.paused ? "Paused" : "Active"}
        </span>
        <Link href={`/deliveries?endpointId=${encodeURIComponent(endpoint.id)}`} className="ml-auto text-sm text-indigo-700 underline">View its deliveries</Link>
      </div>
      <Card title="Health">
        <EndpointHealthSummary health={health} />
      </Card>
      <Card title="Traffic" actions={<RangePicker current={range} hrefFor={(r) => `/endpoints/${endpoint.id}?range=${r}`} />}>
        <TrafficChart series={traffic} label={`Traffic of ${endpoint.name}`} />
      </Card>
      <Card title="Receiving">
        <div className="space-y-4">
          <div>
            <div className="text-sm font-medium text-slate-700">Ingest URL</div>
            <CopyableValue value={endpoint.ingestUrl} testId="ingest-url" />
          </div>
          <p className="text-sm"><span className="text-slate-500">Provider:</span> <ProviderLabel provider={endpoint.provider} /></p>
          {endpoint.provider === "none" ? <Alert tone="warning">Unsafe: this endpoint does not verify signatures; anyone who knows the URL can send to it.</Alert> : null}
          {previousValid ? <p className="text-sm text-slate-600">The previous signing secret still verifies until {utc(previousValid)}.</p> : null}
          {endpoint.awaitingSecret ? (
            <div data-testid="awaiting-secret">
              <Alert tone="warning">
                {`Awaiting its signing secret. Add the ingest URL above at ${providerName(endpoint.provider)}, then paste the signing secret it shows${canChange ? " below" : ""}. Until then, what arrives is refused and kept in the quarantine; it is delivered once the secret is set.`}
              </Alert>
            </div>
          ) : null}
          {endpoint.provider !== "none" && canChange ? (
            <RotateSecretForm action={rotateSecretAction.bind(null, ctx.organizationId)} endpointId={endpoint.id} generates={GENERATES_SECRET.has(endpoint.provider)} providerName={providerName(endpoint.provider)} awaiting={endpoint.awaitingSecret} />
          ) : null}
        </div>
      </Card>
      <Card
        title="Delivering"
        actions={canChange ? (
          <form action={setPausedAction.bind(null, ctx.organizationId)}>
            <input type="hidden" name="id" value={endpoint.id} />
            <input type="hidden" name="paused" value={endpoint.paused ? "false" : "true"} />
            <Button type="submit" variant="secondary">{endpoint.paused ? "Resume deliveries" : "Pause deliveries"}</Button>
          </form>
        ) : null}
      >
        {endpoint.paused ? <div className="mb-4"><Alert tone="warning">Paused: webhooks are still received and stored, but nothing is sent to its default destination until you resume (other destinations keep their own pause).</Alert></div> : null}
        <EndpointSettingsForm action={updateEndpointAction.bind(null, ctx.organizationId)} endpoint={endpoint} alertEmailStatus={alertEmail} readOnly={!canChange} />
      </Card>
      <Card title="Destinations">
        <DestinationList
          destinations={destinations}
          stats={destinationStats}
          endpointId={endpoint.id}
          actions={canChange ? {
            create: createDestinationAction.bind(null, ctx.organizationId),
            update: updateDestinationAction.bind(null, ctx.organizationId),
            remove: deleteDestinationAction.bind(null, ctx.organizationId),
            preview: previewFilterAction.bind(null, ctx.organizationId),
          } : null}
        />
      </Card>
      {canChange ? (
        <Card title="Test event">
          <SendTestEventForm action={sendTestEventAction.bind(null, ctx.organizationId)} endpointId={endpoint.id} />
        </Card>
      ) : null}
      <Card title="Refused requests">
        <RejectedRequestsTable rejections={rejections} now={new Date()} />
      </Card>
      {quarantine && quarantined ? (
        <Card title="Quarantine">
          <p className="mb-3 text-sm text-slate-600" data-testid="quarantine-summary">
            Requests refused for their signature are kept here for {quarantined.days} days (the newest {quarantined.maxRequests.toLocaleString("en")}), sealed,
            so that after a secret change they can still be delivered: rotating the secret re-verifies them, or use “Re-verify quarantined”.
            {` ${quarantined.kept.toLocaleString("en")} kept`}
            {quarantined.notKept > 0 ? `; ${quarantined.notKept.toLocaleString("en")} more were counted but not kept (over the rate per source address).` : "."}
          </p>
          {canChange ? <div className="mb-4"><ReverifyQuarantineForm action={reverifyQuarantineAction.bind(null, ctx.organizationId)} endpointId={endpoint.id} /></div> : null}
          <QuarantineTable requests={quarantine.data} now={new Date()} />
        </Card>
      ) : null}
      {canChange ? (
        <Card title="Delete endpoint">
          <DeleteEndpointForm action={deleteEndpointAction.bind(null, ctx.organizationId)} endpointId={endpoint.id} name={endpoint.name} />
        </Card>
      ) : null}
    </>
  );
}
