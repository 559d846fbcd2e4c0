import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { endpoints } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { encryptSecret } from "@/lib/crypto/secret-box";
import { ValidationError } from "@/lib/errors";
import { forgetEndpoint } from "@/lib/endpoints/endpoint-cache";
import { jobSpec } from "@/lib/queue/job-registry";
import { enqueue } from "@/lib/queue/enqueue";
import type { Provider } from "@/lib/signatures";
import { parseInput } from "@/lib/validation";
import { resolveSecret } from "./endpoint-secrets";
import { getEndpointRowOrThrow } from "./get-endpoint-or-throw";

export const RotateSecretInput = z.strictObject({
  secret: z.string().trim().min(1).max(500).optional(),
  /** How long the previous secret keeps verifying; default 24 h. */
  gracePeriodSeconds: z.number().int().min(0).max(7 * 86_400).default(86_400),
});

/** How long after a secret change the quarantine is re-verified again: past every web process's endpoint cache (5 s). */
export const REVERIFY_SECOND_PASS_MS = 15_000;

/**
 * New secret verifies at once; the previous one keeps verifying until previousSecretValidUntil. The
 * endpoint's quarantine is re-verified by a job queued with the change (jobs/reverify-quarantine.ts); with
 * `reverifyNow` the caller re-verifies it itself at once (the dashboard, to say what was re-admitted) and the
 * job makes only its second pass.
 */
export async function rotateEndpointSecret({ ctx, input }: { ctx: Ctx; input: { id: string; body: unknown; reverifyNow?: boolean } }) {
  const { secret: given, gracePeriodSeconds } = parseInput(RotateSecretInput, input.body ?? {});
  const current = await getEndpointRowOrThrow({ ctx, input });
  if (current.provider === "none") throw new ValidationError("An endpoint with provider none has no secret to rotate.");
  const { secret, generated } = resolveSecret(current.provider as Provider, given);
  const previousSecretValidUntil = new Date(Date.now() + gracePeriodSeconds * 1000);
  await withTransaction(ctx, async (tx) => {
    await tx.db
      .update(endpoints)
      .set({
        secretEncrypted: encryptSecret(secret!),
        previousSecretEncrypted: current.secretEncrypted,
        previousSecretValidUntil: current.secretEncrypted ? previousSecretValidUntil : null,
        updatedAt: new Date(),
      })
      .where(and(eq(endpoints.id, current.id), eq(endpoints.organizationId, ctx.organizationId)));
    // With the new secret: quarantined requests signed with it are admitted (lib/quarantine).
    await enqueue(tx.db, [input.reverifyNow
      ? jobSpec("reverify-quarantine", { organizationId: ctx.organizationId, endpointId: current.id, again: true }, { runAt: new Date(Date.now() + REVERIFY_SECOND_PASS_MS) })
      : jobSpec("reverify-quarantine", { organizationId: ctx.organizationId, endpointId: current.id })]);
    // Never the secret: only whether it was generated and how long the previous one keeps verifying.
    await recordAudit(tx, {
      action: "endpoint.secret_rotated",
      target: { type: "endpoint", id: current.id },
      details: { generated, previousSecretValidUntil: current.secretEncrypted ? previousSecretValidUntil.toISOString() : null },
    });
  });
  forgetEndpoint(current.id);
  // null: there was no previous secret (the endpoint awaited its first), so nothing keeps verifying.
  return { ...(generated ? { secret: secret! } : {}), previousSecretValidUntil: current.secretEncrypted ? previousSecretValidUntil.toISOString() : null };
}
