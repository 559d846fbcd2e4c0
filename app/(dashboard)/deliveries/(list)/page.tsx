import Link from "next/link";
import { BulkActions } from "@/components/deliveries/bulk-actions";
import { DeliveryFilters } from "@/components/deliveries/delivery-filters";
import { DeliveryTable } from "@/components/deliveries/delivery-table";
import { Alert } from "@/components/ui/alert";
import { AutoRefresh } from "@/components/ui/auto-refresh";
import { Card } from "@/components/ui/card";
import { can } from "@/lib/access/roles";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { deliveriesHref, readDeliveriesQuery, type SearchParams } from "@/lib/delivery/presentation/deliveries-page-query";
import { listDeliveries } from "@/lib/delivery/list-deliveries";
import { listDestinationChoices } from "@/lib/destinations/list-destination-choices";
import { listEventTypes } from "@/lib/delivery/list-event-types";
import { listEndpoints } from "@/lib/endpoints/list-endpoints";
import { DomainError } from "@/lib/errors";
import { bulkDeliveriesAction } from "../actions";

export const metadata = { title: "Deliveries · Webhook Inbox" };

const PAGE_SIZE = 50;

// Across endpoints or one (endpointId), with the REST API's filters, search and cursor.
export default async function DeliveriesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await requireDashboardCtx();
  const query = readDeliveriesQuery(await searchParams);
  const { data: endpoints } = await listEndpoints({ ctx, input: { limit: 200 } });
  const [destinations, eventTypes] = await Promise.all([
    listDestinationChoices({ ctx, input: { endpointId: query.values.endpointId } }),
    listEventTypes({ ctx }),
  ]);
  let error = query.error;
  let page: Awaited<ReturnType<typeof listDeliveries>> = { data: [], nextCursor: null };
  if (query.filter) {
    try {
      page = await listDeliveries({ ctx, input: { ...query.filter, limit: PAGE_SIZE, cursor: query.cursor } });
    } catch (failure) {
      if (!(failure instanceof DomainError)) throw failure;
      error = failure.message;
    }
  }
  const waiting = page.data.some((delivery) => delivery.status === "pending" || delivery.status === "delivering");
  const { cursor: _cursor, ...bulkFilter } = query.values;
  const endpointName = endpoints.find((endpoint) => endpoint.id === query.values.endpointId)?.name;
  const destinationName = destinations.find((destination) => destination.id === query.values.destinationId)?.name;
  return (
    <>
      <h1 className="text-lg font-semibold">{`${endpointName ? `Deliveries of ${endpointName}` : "Deliveries"}${destinationName ? ` to ${destinationName}` : ""}`}</h1>
      <Card>
        <DeliveryFilters values={query.values} endpoints={endpoints} destinations={destinations} eventTypes={eventTypes} />
      </Card>
      <Card title={query.cursor ? "Older deliveries" : "Newest deliveries"} actions={<AutoRefresh active={waiting} />}>
        {error ? <Alert>{error}</Alert> : null}
        {!error && page.data.length === 0 ? (
          <p className="text-sm text-slate-600">
            {page.nextCursor ? "None of the deliveries searched so far match; “Older →” searches further back." : "No deliveries match."}
          </p>
        ) : null}
        {page.data.length > 0 ? (
          <DeliveryTable deliveries={page.data} endpointNames={new Map(endpoints.map((e) => [e.id, e.name]))} now={new Date()} />
        ) : null}
        <nav aria-label="Pages" className="mt-4 flex gap-4 text-sm">
          {query.cursor ? <Link prefetch={false} href={deliveriesHref(query.values, { cursor: "" })} className="text-indigo-700 underline">← Newest</Link> : null}
          {page.nextCursor ? <Link prefetch={false} href={deliveriesHref(query.values, { cursor: page.nextCursor })} className="text-indigo-700 underline">Older →</Link> : null}
        </nav>
      </Card>
      {query.filter && can(ctx.actor, "change") ? (
        <Card title="Bulk actions">
          <BulkActions key={JSON.stringify(bulkFilter)} action={bulkDeliveriesAction.bind(null, ctx.organizationId)} filter={bulkFilter} />
        </Card>
      ) : null}
    </>
  );
}
