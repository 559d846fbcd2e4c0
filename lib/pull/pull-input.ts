// What a pull, an ack and a nack take and answer (API.md "Pull destinations and `inbox listen`"): the schemas the
// routes validate with, exported by name for the API's other readers (an OpenAPI document, a typed client).
import { z } from "zod";

export const PullInput = z.strictObject({
  /** Deliveries leased at most. */
  max: z.number().int("max must be a whole number").min(1, "max must be from 1 to 100").max(100, "max must be from 1 to 100").default(10),
  /** How long each lease lasts: unacknowledged by then, it is a failed attempt (`lease_expired`). */
  leaseSeconds: z.number().int("leaseSeconds must be a whole number").min(5, "leaseSeconds must be from 5 to 300").max(300, "leaseSeconds must be from 5 to 300").default(30),
  /** How long to wait while nothing is ready (a long poll); 0 answers at once. */
  waitSeconds: z.number().int("waitSeconds must be a whole number").min(0, "waitSeconds must be from 0 to 30").max(30, "waitSeconds must be from 0 to 30").default(0),
});
export type PullInput = z.input<typeof PullInput>;

/** One leased delivery: the request as stored, its body as GET /deliveries/{id} gives it (UTF-8 text, or base64 when its bytes are not UTF-8). */
export const LeasedDelivery = z.strictObject({
  leaseId: z.string(),
  /** The request's id, as the ingest answer and GET /deliveries/{id} name it. */
  deliveryId: z.string(),
  /** 1-based, per destination, this lease included. */
  attempt: z.number().int(),
  receivedAt: z.string(),
  eventType: z.string().nullable(),
  externalId: z.string(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  bodyEncoding: z.enum(["utf8", "base64"]),
});
export type LeasedDelivery = z.infer<typeof LeasedDelivery>;

export const PullOutput = z.strictObject({ data: z.array(LeasedDelivery) });
export type PullOutput = z.infer<typeof PullOutput>;

const LeaseIds = z.array(z.string().max(100, "a lease id is at most 100 characters"), "leaseIds must be an array of lease ids")
  .min(1, "leaseIds must name at least one lease").max(100, "leaseIds may name at most 100 leases");

export const AckInput = z.strictObject({ leaseIds: LeaseIds });
export type AckInput = z.input<typeof AckInput>;

export const AckOutput = z.strictObject({ acked: z.array(z.string()), unknown: z.array(z.string()) });
export type AckOutput = z.infer<typeof AckOutput>;

export const NackInput = z.strictObject({
  leaseIds: LeaseIds,
  /** The retry waits at least this long (as a destination's Retry-After); the backoff when longer. */
  retryAfterSeconds: z.number().int("retryAfterSeconds must be a whole number").min(0, "retryAfterSeconds must be from 0 to 86400").max(86_400, "retryAfterSeconds must be from 0 to 86400").optional(),
});
export type NackInput = z.input<typeof NackInput>;

export const NackOutput = z.strictObject({ nacked: z.array(z.string()), unknown: z.array(z.string()) });
export type NackOutput = z.infer<typeof NackOutput>;
