import Link from "next/link";
import { AuditFilters } from "@/components/audit/audit-filters";
import { AuditTable } from "@/components/audit/audit-table";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { auditLogHref, readAuditPageQuery, type SearchParams } from "@/lib/audit/audit-page-query";
import { listAuditActors } from "@/lib/audit/list-audit-actors";
import { listAuditLog } from "@/lib/audit/list-audit-log";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { DomainError } from "@/lib/errors";

export const metadata = { title: "Audit log · Webhook Inbox" };

const PAGE_SIZE = 50;

// Who changed what, newest first; filtered and paged like GET /api/v1/audit-log. Read only: entries
// cannot be changed or deleted here or anywhere.
export default async function AuditLogPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await requireDashboardCtx();
  const query = readAuditPageQuery(await searchParams);
  const actors = await listAuditActors({ ctx });
  let error = query.error;
  let page: Awaited<ReturnType<typeof listAuditLog>> = { data: [], nextCursor: null };
  if (query.filter) {
    try {
      page = await listAuditLog({ ctx, input: { ...query.filter, limit: PAGE_SIZE, cursor: query.cursor } });
    } catch (failure) {
      if (!(failure instanceof DomainError)) throw failure;
      error = failure.message;
    }
  }
  return (
    <>
      <h1 className="text-lg font-semibold">Audit log</h1>
      <Card>
        <AuditFilters values={query.values} actors={actors} />
      </Card>
      <Card title={query.cursor ? "Older entries" : "Newest entries"}>
        <p className="mb-4 text-sm text-slate-600">Every change to endpoints, deliveries, API keys, members and settings, kept 365 days. Secrets are never recorded.</p>
        {error ? <Alert>{error}</Alert> : null}
        {!error && page.data.length === 0 ? <p className="text-sm text-slate-600">No entries match.</p> : null}
        {page.data.length > 0 ? <AuditTable entries={page.data} values={query.values} now={new Date()} /> : null}
        <nav aria-label="Pages" className="mt-4 flex gap-4 text-sm">
          {query.cursor ? <Link prefetch={false} href={auditLogHref(query.values, { cursor: "" })} className="text-indigo-700 underline">← Newest</Link> : null}
          {page.nextCursor ? <Link prefetch={false} href={auditLogHref(query.values, { cursor: page.nextCursor })} className="text-indigo-700 underline">Older →</Link> : null}
        </nav>
      </Card>
    </>
  );
}
