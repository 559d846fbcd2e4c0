// GET /api/v1/audit-log — the organization's audit log, newest first, filtered, cursor-paginated
import { auditLogFilterFromQuery } from "@/lib/audit/audit-log-filter";
import { listAuditLog } from "@/lib/audit/list-audit-log";
import { apiRoute } from "@/lib/http/api-route";

export const GET = apiRoute(async ({ ctx, query }) =>
  Response.json(await listAuditLog({ ctx, input: { ...auditLogFilterFromQuery(query), limit: query.get("limit") ?? undefined, cursor: query.get("cursor") } })),
);
