// A bounded log of refused requests per endpoint, for the dashboard: time, reason, source IP and
// header names, never the body or header values. Writes happen off the request path, at most a few
// per endpoint per window per process, and the table keeps the newest KEEP_PER_ENDPOINT rows, so an
// unsigned flood cannot fill the database.
import { getSql } from "@/db";
import { describeErrorBriefly } from "@/lib/logging/describe-error";
import { logger } from "@/lib/logging/logger";

const KEEP_PER_ENDPOINT = 100;
const WINDOW_MS = 10_000;
const MAX_PER_WINDOW = 10;
const windows = new Map<string, { startedAt: number; count: number }>();

export interface Rejection {
  reason: string;
  message: string;
  sourceIp: string | null;
  headerNames: string[];
}

function allowed(endpointId: string, now: number): boolean {
  const window = windows.get(endpointId);
  if (!window || now - window.startedAt > WINDOW_MS) {
    if (windows.size > 10_000) windows.clear();
    windows.set(endpointId, { startedAt: now, count: 1 });
    return true;
  }
  return ++window.count <= MAX_PER_WINDOW;
}

export function recordRejection(endpoint: { id: string; organizationId: string }, rejection: Rejection): void {
  if (!allowed(endpoint.id, Date.now())) return;
  const sql = getSql();
  void sql
    .begin(async (tx) => {
      await tx`insert into rejected_requests (organization_id, endpoint_id, reason, message, source_ip, header_names)
        values (${endpoint.organizationId}, ${endpoint.id}, ${rejection.reason}, ${rejection.message.slice(0, 500)},
                ${rejection.sourceIp}, ${rejection.headerNames.slice(0, 100)})`;
      await tx`delete from rejected_requests where endpoint_id = ${endpoint.id} and id <= (
        select id from rejected_requests where endpoint_id = ${endpoint.id} order by id desc offset ${KEEP_PER_ENDPOINT} limit 1)`;
    })
    .catch((error) => logger.error({ organizationId: endpoint.organizationId, endpointId: endpoint.id }, `[ingest] could not record a rejection for endpoint ${endpoint.id}: ${describeErrorBriefly(error)}`));
}
