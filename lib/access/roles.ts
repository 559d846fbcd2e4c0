// What each role may do (API.md "Organization, members, roles"): the one table every REST route,
// server action and page asks, through can() and requirePermission().
import { ForbiddenError } from "@/lib/errors";

export const ROLES = ["owner", "admin", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/**
 * Who acts: a member (with their role in the organization), an API key (with its role, and the member on
 * whose authority it was made, null for the CLI's keys), or the system itself.
 */
export type Actor =
  | { type: "user"; userId: string; role: Role }
  | { type: "api_key"; apiKeyId: string; role: Role; onBehalfOfUserId: string | null }
  | { type: "system" };

/**
 * read: see anything in the organization. change: endpoints, deliveries, API keys, organization
 * settings. manage_members: members and invitations. delete_organization: what it says.
 */
export type Permission = "read" | "change" | "manage_members" | "delete_organization";

const GRANTS: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set(["read", "change", "manage_members", "delete_organization"]),
  admin: new Set(["read", "change"]),
  viewer: new Set(["read"]),
};

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** The system (jobs, the CLI) may do everything; a person or key as their role allows. */
export function can(actor: Actor, permission: Permission): boolean {
  return actor.type === "system" || GRANTS[actor.role].has(permission);
}

/** Throws 403 `forbidden` unless ctx's actor may do it. */
export function requirePermission(ctx: { actor: Actor }, permission: Permission): void {
  if (!can(ctx.actor, permission)) throw new ForbiddenError();
}

/**
 * Whether actor may hand out `role` (an API key's, or a member's): only a role whose grants are all
 * the actor's own, so an admin cannot make an owner key. The system may hand out any.
 */
export function canGrant(actor: Actor, role: Role): boolean {
  return actor.type === "system" || [...GRANTS[role]].every((permission) => GRANTS[actor.role].has(permission));
}

/** The roles a member with `role` may not hand out: their keys of these roles go when they get `role`. */
export function rolesAbove(role: Role): Role[] {
  return ROLES.filter((other) => !canGrant({ type: "user", userId: "", role }, other));
}

/** The member behind an actor: a user, or the member on whose authority a key was made (null: the CLI, the system). */
export function memberBehind(actor: Actor): string | null {
  return actor.type === "user" ? actor.userId : actor.type === "api_key" ? actor.onBehalfOfUserId : null;
}
