import { and, eq } from "drizzle-orm";
import { deliveries, deliveryPayloads, destinations } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { decryptSecret } from "@/lib/crypto/secret-box";
import { NotFoundError } from "@/lib/errors";
import { curlCommand } from "./presentation/curl-command";
import { buildOutboundHeaders } from "@/lib/delivery/engine";

/**
 * A cURL command that re-sends one delivery of ctx's organization to its destination (its endpoint's default one
 * unless the endpoint has several):
 * the stored bytes and the headers the worker sends (as on its last attempt, x-inbox-attempt
 * included). When the endpoint signs outbound, the signature is made now, so a destination that
 * checks timestamps accepts the command for its tolerance window (5 minutes for Standard Webhooks).
 */
export async function getDeliveryCurl({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<{ command: string; signedAt: string | null }> {
  const [row] = await ctx.db
    .select({
      id: deliveries.id,
      headers: deliveryPayloads.headers,
      body: deliveryPayloads.body,
      attemptCount: deliveries.attemptCount,
      destinationId: deliveries.destinationId,
      destinationUrl: destinations.url,
      outboundSecretEncrypted: destinations.outboundSecretEncrypted,
    })
    .from(deliveries)
    .innerJoin(destinations, and(eq(destinations.id, deliveries.destinationId), eq(destinations.organizationId, deliveries.organizationId)))
    .innerJoin(deliveryPayloads, and(eq(deliveryPayloads.deliveryId, deliveries.id), eq(deliveryPayloads.organizationId, deliveries.organizationId)))
    .where(and(eq(deliveries.id, input.id), eq(deliveries.organizationId, ctx.organizationId)))
    .limit(1);
  if (!row) throw new NotFoundError("Delivery");
  const now = new Date();
  const outboundSecret = row.outboundSecretEncrypted ? decryptSecret(row.outboundSecretEncrypted) : null;
  const headers = buildOutboundHeaders({ stored: row.headers, deliveryId: row.id, destinationId: row.destinationId, attemptNumber: Math.max(1, row.attemptCount), body: row.body, outboundSecret, now });
  // A pull destination has no URL of its own: the command names one for the reader to fill in.
  const url = row.destinationUrl ?? "http://localhost:PORT/path";
  return { command: curlCommand({ url, headers, body: row.body }), signedAt: outboundSecret ? now.toISOString() : null };
}
