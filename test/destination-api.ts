// The Destinations REST API's tests' helpers (lib/destinations/destinations-*.int.test.ts): its route handlers
// called as Next.js does, an endpoint to hang destinations on, and the rows, audit entries, deliveries and jobs
// the tests read and seed.
import { expect } from "vitest";
import * as endpointCollection from "@/app/api/v1/endpoints/route";
import * as collection from "@/app/api/v1/endpoints/[id]/destinations/route";
import * as item from "@/app/api/v1/endpoints/[id]/destinations/[destinationId]/route";
import { getDb, getSql } from "@/db";
import { deliverJobSpec, enqueue } from "@/lib/queue/enqueue";
import { callRoute } from "@/test/fixtures";

/** A Standard Webhooks secret to sign outbound with. */
export const OUTBOUND = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;

/** A new endpoint (with its default destination, at http://127.0.0.1:9/default) made through the API; its id. */
export async function endpointOf(apiKey: string, settings: Record<string, unknown> = {}): Promise<string> {
  const made = await callRoute(endpointCollection.POST, { method: "POST", apiKey, body: { name: "Orders", provider: "none", destinationUrl: "http://127.0.0.1:9/default", ...settings } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.id;
}
export const list = (apiKey: string, id: string, query = "") => callRoute(collection.GET, { apiKey, params: { id }, path: `/api/v1/endpoints/${id}/destinations${query}` });
export const create = (apiKey: string, id: string, body: unknown) => callRoute(collection.POST, { method: "POST", apiKey, params: { id }, body });
export const get = (apiKey: string, id: string, destinationId: string) => callRoute(item.GET, { apiKey, params: { id, destinationId } });
export const patch = (apiKey: string, id: string, destinationId: string, body: unknown) => callRoute(item.PATCH, { method: "PATCH", apiKey, params: { id, destinationId }, body });
export const remove = (apiKey: string, id: string, destinationId: string) => callRoute(item.DELETE, { method: "DELETE", apiKey, params: { id, destinationId } });

export const destinationRows = (endpointId: string) => getSql()`
  select id, name, type, url, is_default, filter, rate_per_second, rate_burst, ordering_key, paused, max_attempts, retry_base_seconds,
    timeout_ms, outbound_secret_encrypted, deleted_at, updated_at
  from destinations where endpoint_id = ${endpointId} order by id`;
export const auditOf = (organizationId: string, targetId: string) => getSql()`
  select action, target_type, details from audit_log where organization_id = ${organizationId} and target_id = ${targetId} order by at, id`;

export interface DeliverySeed {
  id: string;
  endpointId: string;
  destinationId: string;
  status: "pending" | "delivering" | "delivered" | "dead";
  parked?: boolean;
  lastError?: string;
  /** Its deliver job, as ingest or a retry leaves one for a pending delivery that is not parked. */
  job?: boolean;
}

/** Delivery rows of the organization as ingest and the engine leave them (rows only: burying and counting read no payload). */
export async function insertDeliveries(organizationId: string, seeds: DeliverySeed[]): Promise<void> {
  await getSql()`
    insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, last_error, parked_at,
      claimed_by_job, lease_expires_at)
    select s.id, ${organizationId}, s.endpoint_id, s.destination_id, 'evt_' || s.id, s.status, 2, s.last_error,
      case when s.parked then now() end,
      case when s.status = 'delivering' then 'job-1' end, case when s.status = 'delivering' then now() + interval '1 minute' end
    from json_to_recordset(${JSON.stringify(seeds.map((s) => ({ id: s.id, endpoint_id: s.endpointId, destination_id: s.destinationId,
      status: s.status, last_error: s.lastError ?? null, parked: s.parked ?? false })))}::text::json)
      as s(id text, endpoint_id text, destination_id text, status text, last_error text, parked boolean)`;
  const jobs = seeds.filter((s) => s.job).map((s) => deliverJobSpec({ deliveryId: s.id, destinationId: s.destinationId, trigger: "auto" }));
  if (jobs.length) await enqueue(getDb(), jobs);
}
/** Which of these deliveries have a deliver job waiting (keyed or not). */
export const withJobs = async (deliveryIds: string[]) =>
  (await getSql()`select distinct payload->>'deliveryId' as id from graphile_worker._private_jobs
    where payload->>'deliveryId' in ${getSql()(deliveryIds)} order by 1`).map((r) => r.id as string);
export const statusesOf = async (ids: string[]) =>
  Object.fromEntries((await getSql()`select id, status, last_error from deliveries where id in ${getSql()(ids)}`).map((r) => [r.id, [r.status, r.last_error]]));
