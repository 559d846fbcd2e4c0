// The organization both role-matrix files (role-matrix-rest and role-matrix-actions, issue #15 point 2)
// call into: an owner, an admin and a viewer (an API key and a member's session each), fresh targets
// for each call, and the organization's state as comparable text to show that a refusal changed nothing.
import { randomBytes } from "node:crypto";
import { beforeAll } from "vitest";
import { getSql } from "@/db";
import type { Role } from "@/lib/access/roles";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { createCtx, type Ctx } from "@/lib/context";
import { createDestination } from "@/lib/destinations/create-destination";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { memberWithSession } from "@/test/dashboard-session";
import { createDeliveryFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";

export const ROLES: Role[] = ["viewer", "admin", "owner"];
export const newEmail = () => `invitee-${randomBytes(6).toString("hex")}@example.test`;

export interface World {
  organizationId: string;
  ctx: Ctx;
  keys: Record<Role, string>;
  sessions: Record<Role, string>;
  users: Record<Role, { userId: string; email: string; ownOrganizationId: string }>;
}
let current: World | undefined;

/** The matrix organization, made once per test file by useRoleMatrixWorld()'s beforeAll. */
export function world(): World {
  if (!current) throw new Error("useRoleMatrixWorld() was not called in this file");
  return current;
}

export function useRoleMatrixWorld() {
  beforeAll(async () => {
    const owner = await createOrganizationFixture("Matrix");
    const ctx = createCtx(owner.organizationId, { type: "system" });
    const keys = { owner: owner.apiKey } as Record<Role, string>;
    for (const role of ["admin", "viewer"] as const) keys[role] = (await createApiKey({ ctx, input: { name: role, role } })).apiKey;
    const users = {} as World["users"];
    const sessions = {} as World["sessions"];
    for (const role of ROLES) {
      const member = await memberWithSession(owner.organizationId, role);
      users[role] = member;
      sessions[role] = member.sessionId;
    }
    current = { organizationId: owner.organizationId, ctx, keys, sessions, users };
  });
}

// Fresh targets for each call, so one role's allowed change never decides what the next role meets.
export const endpoint = async (provider = "standard-webhooks") =>
  createEndpoint({ ctx: world().ctx, input: { name: `ep-${Math.random().toString(36).slice(2, 8)}`, provider, destinationUrl: "http://127.0.0.1:9/hook" } });
/** A fresh endpoint with a destination beside its default one. */
export const destination = async () => {
  const { id: endpointId } = await endpoint("none");
  const made = await createDestination({ ctx: world().ctx, input: { endpointId, body: { name: "extra", url: "http://127.0.0.1:9/extra" } } });
  return { endpointId, id: made.id };
};
export const delivery = async (status: "pending" | "delivered" | "dead" = "dead") => {
  const { id: endpointId } = await endpoint("none");
  return { endpointId, ...(await createDeliveryFixture({ ctx: world().ctx, endpointId, status, enqueue: false })) };
};

/** The organization's state that any route or action could change, as comparable text. */
export async function organizationState(organizationId: string) {
  const [row] = await getSql()`
    select
      (select concat_ws('|', name, retention_days, deleted_at, digest_hour_utc, digest_recipients) from organizations where id = ${organizationId}) as organization,
      -- With each endpoint's default destination, which holds its destinationUrl, paused, maxAttempts and outbound secret.
      (select coalesce(string_agg(concat_ws('|', e.id, e.name, d.url, d.paused, d.max_attempts, e.secret_encrypted, e.previous_secret_encrypted, d.outbound_secret_encrypted, e.updated_at, d.updated_at), ',' order by e.id), '')
         from endpoints e join destinations d on d.endpoint_id = e.id and d.is_default where e.organization_id = ${organizationId}) as endpoints,
      (select coalesce(string_agg(concat_ws('|', id, status, updated_at, pending_since, parked_at, next_attempt_at), ',' order by id), '')
         from deliveries where organization_id = ${organizationId}) as deliveries,
      (select coalesce(string_agg(concat_ws('|', id, name, url, filter, rate_per_second, ordering_key, paused, outbound_secret_encrypted, deleted_at, updated_at), ',' order by id), '')
         from destinations where organization_id = ${organizationId}) as destinations,
      (select coalesce(string_agg(concat_ws('|', id, name, role, revoked_at), ',' order by id), '') from api_keys where organization_id = ${organizationId}) as api_keys,
      (select coalesce(string_agg(concat_ws('|', user_id, role), ',' order by user_id), '') from memberships where organization_id = ${organizationId}) as memberships,
      (select coalesce(string_agg(concat_ws('|', id, role, withdrawn_at, accepted_at), ',' order by id), '') from invitations where organization_id = ${organizationId}) as invitations,
      (select count(*)::int from quarantined_requests where organization_id = ${organizationId}) as quarantined,
      (select count(*)::int from sessions where organization_id = ${organizationId}) as sessions,
      (select coalesce(string_agg(concat_ws('|', id, name, target, updated_at), ',' order by id), '') from alert_channels where organization_id = ${organizationId}) as alert_channels,
      (select count(*)::int from alert_notifications where organization_id = ${organizationId}) as alert_notifications,
      (select count(*)::int from graphile_worker.jobs) as jobs`;
  return row;
}
