// The pull routes' bodies and answers, from API.md "Pull destinations and `inbox listen`" alone: the routes are not
// built yet (PENDING_ROUTES in ./operations.ts). When lib/pull/pull-input.ts exports the schemas they validate with,
// the input schemas here give way to those.
import { z } from "zod";

const leaseIds = z.array(z.string().min(1).max(100)).min(1).max(100);

export const PullInput = z.strictObject({
  max: z.number().int().min(1).max(100).default(10),
  leaseSeconds: z.number().int().min(5).max(300).default(30),
  waitSeconds: z.number().int().min(0).max(30).default(0),
});

export const AckInput = z.strictObject({ leaseIds });

export const NackInput = z.strictObject({ leaseIds, retryAfterSeconds: z.number().int().min(0).max(86_400).optional() });

export const PulledDelivery = z.strictObject({
  leaseId: z.string(),
  deliveryId: z.string(),
  attempt: z.number().int().min(1),
  receivedAt: z.iso.datetime(),
  eventType: z.string().nullable(),
  externalId: z.string().nullable(),
  headers: z.record(z.string(), z.string()),
  body: z.string().describe("UTF-8 text, or base64 when bodyEncoding is base64"),
  bodyEncoding: z.enum(["utf8", "base64"]).optional(),
});

export const Pulled = z.strictObject({ data: z.array(PulledDelivery) });

/** Lease ids that were unknown, expired or already settled: reported, never an error for the others. */
const unknown = z.array(z.string());
export const Acked = z.strictObject({ acked: z.number().int().min(0), unknown });
export const Nacked = z.strictObject({ nacked: z.number().int().min(0), unknown });
