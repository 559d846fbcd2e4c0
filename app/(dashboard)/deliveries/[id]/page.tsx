import Link from "next/link";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { AttemptsTimeline } from "@/components/deliveries/attempts-timeline";
import { DeliveryActions } from "@/components/deliveries/delivery-actions";
import { DeliveryBody } from "@/components/deliveries/delivery-body";
import { TestBadge } from "@/components/deliveries/delivery-table";
import { DestinationDeliveries } from "@/components/deliveries/destination-deliveries";
import { RetryPlanView } from "@/components/deliveries/retry-plan";
import { DEAD_REASON_TEXT, StatusBadge } from "@/components/deliveries/status-badge";
import { AutoRefresh } from "@/components/ui/auto-refresh";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { RelativeTime, exactTime } from "@/components/ui/relative-time";
import { can } from "@/lib/access/roles";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { getDelivery } from "@/lib/delivery/get-delivery";
import { getDeliveryCurl } from "@/lib/delivery/get-delivery-curl";
import { getRetryPlan } from "@/lib/delivery/get-retry-plan";
import { getEndpoint } from "@/lib/endpoints/get-endpoint";
import { NotFoundError } from "@/lib/errors";
import { isId } from "@/lib/ids";
import { deliveryAction } from "./actions";

// Named by its id, from the address alone: a tab per delivery tells them apart without a query more.
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return { title: isId("dlv", id) ? `Delivery ${id} · Webhook Inbox` : "Delivery · Webhook Inbox" };
}

const orNotFound = (error: unknown): never => {
  if (error instanceof NotFoundError) notFound();
  throw error;
};

// One delivery: what came in, every attempt at handing it on, and the buttons to fix it.
export default async function DeliveryPage({ params }: { params: Promise<{ id: string }> }) {
  const ctx = await requireDashboardCtx();
  const { id } = await params;
  if (!isId("dlv", id)) notFound(); // not one of our ids: no query with it
  const delivery = await getDelivery({ ctx, input: { id } }).catch(orNotFound);
  // The endpoint may be deleted while its deliveries wait for the purge: not found, not a 500.
  const [endpoint, curl, plan] = await Promise.all([
    getEndpoint({ ctx, input: { id: delivery.endpointId } }),
    getDeliveryCurl({ ctx, input: { id } }),
    getRetryPlan({ ctx, input: { id } }),
  ]).catch(orNotFound);
  const now = new Date();
  const facts: Array<[string, ReactNode]> = [
    ["Endpoint", <Link prefetch={false} key="e" href={`/endpoints/${endpoint.id}`} className="text-indigo-700 hover:underline">{endpoint.name}</Link>],
    ["Event type", delivery.eventType ?? "none"],
    ["External id", <code key="x" className="font-mono text-xs break-all">{delivery.externalId}</code>],
    ["Received", <span key="r"><RelativeTime iso={delivery.receivedAt} now={now} /> · {exactTime(delivery.receivedAt)}</span>],
    ["Attempts", String(delivery.attemptCount)],
    ["Last status code", delivery.lastStatusCode === null ? "—" : String(delivery.lastStatusCode)],
    ["Next attempt", delivery.nextAttemptAt ? <RelativeTime key="n" iso={delivery.nextAttemptAt} now={now} /> : "—"],
    ["Delivered", delivery.deliveredAt ? exactTime(delivery.deliveredAt) : "—"],
    ...(delivery.deadReason ? [["Why dead", <span key="w" data-testid="dead-reason">{DEAD_REASON_TEXT[delivery.deadReason]}</span>] as [string, ReactNode]] : []),
  ];
  const waiting = delivery.status === "pending" || delivery.status === "delivering";
  const canChange = can(ctx.actor, "change");
  const action = deliveryAction.bind(null, ctx.organizationId);
  const destinationNames = new Map(delivery.destinations.map((row) => [row.destinationId, row.name ?? row.destinationId]));
  return (
    <>
      <div className="flex flex-wrap items-center gap-3">
        <Link prefetch={false} href={`/deliveries?endpointId=${encodeURIComponent(endpoint.id)}`} className="text-sm text-indigo-700 underline">← {endpoint.name} deliveries</Link>
        <h1 className="font-mono text-base font-semibold">{delivery.id}</h1>
        <span data-testid="delivery-status"><StatusBadge status={delivery.status} deadReason={delivery.deadReason} /></span>
        {delivery.test ? <TestBadge /> : null}
        <div className="ml-auto"><AutoRefresh active={waiting} intervalMs={2000} /></div>
      </div>
      <Card title="Summary">
        {canChange ? (
          <div className="mb-4">
            {delivery.destinations.length > 1 ? <p className="mb-2 text-sm text-slate-600">{`Replay and Bury here act on all ${delivery.destinations.length} destinations; each one’s own are below.`}</p> : null}
            <DeliveryActions action={action} id={delivery.id} status={delivery.status} attemptCount={delivery.attemptCount} paused={endpoint.paused} />
          </div>
        ) : null}
        {plan ? <RetryPlanView plan={plan} now={now} /> : null}
        {delivery.lastError ? <p className="mb-3 text-sm break-words text-red-800" data-testid="delivery-last-error">Last error: {delivery.lastError}</p> : null}
        <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2 lg:grid-cols-4">
          {facts.map(([label, value]) => (
            <div key={label} className="min-w-0"><dt className="text-slate-500">{label}</dt><dd className="wrap-anywhere">{value}</dd></div>
          ))}
        </dl>
      </Card>
      <Card title="Destinations"><DestinationDeliveries delivery={delivery} action={canChange ? action : null} now={now} /></Card>
      <Card title="Attempts"><AttemptsTimeline attempts={delivery.attempts} destinationNames={destinationNames} now={now} /></Card>
      <Card title="Body"><DeliveryBody body={delivery.body} encoding={delivery.bodyEncoding} sizeBytes={delivery.sizeBytes} /></Card>
      <Card title="Headers">
        <table className="w-full text-left text-xs">
          <caption className="sr-only">Request headers as received</caption>
          <thead className="text-slate-500"><tr><th scope="col" className="py-1 pr-4 font-medium">Name</th><th scope="col" className="font-medium">Value</th></tr></thead>
          <tbody className="divide-y divide-slate-100 font-mono">
            {Object.entries(delivery.headers).sort(([a], [b]) => a.localeCompare(b)).map(([name, value]) => (
              <tr key={name}><th scope="row" className="py-1 pr-4 align-top font-normal break-all text-slate-600 md:whitespace-nowrap">{name}</th><td className="break-all">{value}</td></tr>
            ))}
          </tbody>
        </table>
      </Card>
      <Card title="Re-send with cURL" actions={<CopyButton value={curl.command} label="Copy cURL" accessibleName="Copy cURL command" />}>
        <p className="mb-2 text-xs text-slate-500">
          Sends the stored bytes to {endpoint.destinationUrl} with the headers the worker sends.
          {curl.signedAt ? ` Signed with the outbound secret at ${exactTime(curl.signedAt)}: a destination that checks timestamps accepts it for about 5 minutes.` : ""}
        </p>
        <pre data-testid="curl-command" tabIndex={0} aria-label="cURL command" className="max-h-64 overflow-auto rounded bg-slate-100 p-3 font-mono text-xs whitespace-pre-wrap break-all">{curl.command}</pre>
      </Card>
    </>
  );
}
